import { rooted } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { EtcdHostsSettings } from "./settings";
import { clientUrl, peerUrl } from "./urls";

/** Absolute (rooted) paths of one member's files. */
export interface MemberFiles {
  readonly bin: string;
  readonly dataDir: string;
  readonly configFile: string;
  readonly pkiDir: string;
  readonly libDir: string;
  readonly cacheDir: string;
  readonly logFile: string;
  readonly stateDir: string;
}

/** Where a member's files live on its host, its root applied. */
export function memberFiles(settings: EtcdHostsSettings, member: ResolvedHost): MemberFiles {
  const at = (p: string) => rooted(member.root, p);
  return {
    bin: at(settings.paths.binDir),
    dataDir: at(settings.paths.dataDir),
    configFile: at(`${settings.paths.configDir}/etcd.conf.yml`),
    pkiDir: at(settings.paths.pkiDir),
    libDir: at(settings.paths.libDir),
    cacheDir: at(settings.paths.cacheDir),
    logFile: at(`${settings.paths.logDir}/etcd.log`),
    stateDir: at(`${settings.paths.stateDir}/pk-etcd`),
  };
}

/**
 * etcd's YAML config for a member. `token`, `initialCluster` and `initialState` may be bash expressions
 * (the member script decides them at run time: bootstrap, join, restore, or what a running member was
 * started with); etcd ignores them once its data dir is initialised. TLS with client-certificate auth on both client and peer listeners.
 */
export function etcdConfigYaml(
  settings: EtcdHostsSettings,
  member: ResolvedHost,
  token: string,
  initialCluster: string,
  initialState: string,
): string {
  const files = memberFiles(settings, member);
  const tls = (cert: string) => [
    `  cert-file: ${files.pkiDir}/${cert}.crt`,
    `  key-file: ${files.pkiDir}/${cert}.key`,
    `  trusted-ca-file: ${files.pkiDir}/ca.crt`,
    `  client-cert-auth: true`,
  ];
  return [
    `name: ${member.name}`,
    `data-dir: ${files.dataDir}`,
    `listen-client-urls: ${clientUrl(settings, member)}`,
    `advertise-client-urls: ${clientUrl(settings, member)}`,
    `listen-peer-urls: ${peerUrl(settings, member)}`,
    `initial-advertise-peer-urls: ${peerUrl(settings, member)}`,
    `initial-cluster: ${initialCluster}`,
    `initial-cluster-state: ${initialState}`,
    `initial-cluster-token: ${token}`,
    `client-transport-security:`,
    ...tls("server"),
    `peer-transport-security:`,
    ...tls("peer"),
    `snapshot-count: ${settings.snapshotCount}`,
    `quota-backend-bytes: ${settings.quotaBackendBytes}`,
    `strict-reconfig-check: true`,
    // Explicit: with a config file, etcd 3.4 leaves the JSON gateway (/v3/…) off; 3.5 turns it on.
    `enable-grpc-gateway: true`,
    `logger: zap`,
    `log-outputs: [stderr]`,
    "",
  ].join("\n");
}
