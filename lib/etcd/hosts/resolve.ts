import { resolveArtifact } from "../../hosts/artifact";
import { safePath } from "../../hosts/shell";
import { ResolvedHost, resolveHosts } from "../../hosts/spec";
import { ErrorCollector, check } from "../../validation/errors";
import { EtcdBackupArgs, EtcdHostsArgs } from "./config";
import { ETCD_HOSTS_DEFAULTS } from "./defaults";
import { etcdReleaseUrl, knownEtcdSha256 } from "./release";
import { EtcdHostsBackupSettings, EtcdHostsSettings } from "./settings";
import {
  port,
  privateDir,
  validateBackupHost,
  validateBoolean,
  validateCounter,
  validateEtcdVersion,
  validateMemberCount,
  validatePositiveInteger,
  validateRetain,
  validateServiceManager,
  validateSystemdRoot,
} from "./validate";

function resolveBackup(
  args: EtcdBackupArgs | undefined,
  members: readonly ResolvedHost[],
  field: string,
): EtcdHostsBackupSettings {
  const given = args ?? {};
  const defaults = ETCD_HOSTS_DEFAULTS.backup;
  const host = given.host ?? members[0].name;
  validateBackupHost(`${field}.host`, host, members);
  const retain = given.retain ?? defaults.retain;
  validateRetain(`${field}.retain`, retain);
  const minutes = given.intervalMinutes ?? defaults.intervalMinutes;
  validatePositiveInteger(`${field}.intervalMinutes`, minutes);
  if (given.uploadCommand !== undefined) {
    check(given.uploadCommand.trim() !== "", `${field}.uploadCommand`, "is empty");
  }
  return {
    enabled: given.enabled ?? true,
    host,
    dir: privateDir(given.dir ?? defaults.dir, `${field}.dir`),
    retain,
    intervalSeconds: minutes * 60,
    uploadCommand: given.uploadCommand,
  };
}

/**
 * Applies defaults and validates; every problem is a ConfigError naming the field under `field`
 * (e.g. `etcd`). `name` is the component's Pulumi name.
 */
export function resolveEtcdHostsSettings(
  name: string,
  args: EtcdHostsArgs,
  field = "etcd",
): EtcdHostsSettings {
  const d = ETCD_HOSTS_DEFAULTS;
  // independent checks all run; the first failure of each is reported together
  const errors = new ErrorCollector();
  const run = <T>(fn: () => T): T => errors.attempt(fn) as T;
  const members = run(() => {
    const resolved = resolveHosts(args.hosts, `${field}.hosts`);
    validateMemberCount(`${field}.hosts`, resolved);
    return resolved;
  });
  const version = args.version ?? d.version;
  run(() => validateEtcdVersion(`${field}.version`, version));
  const serviceManager = args.serviceManager ?? d.serviceManager;
  run(() => validateServiceManager(`${field}.serviceManager`, serviceManager));
  if (serviceManager === "systemd" && members) {
    members.forEach((m, i) => run(() => validateSystemdRoot(`${field}.hosts[${i}].root`, m.root)));
  }
  const artifactArgs =
    args.artifact?.url || args.artifact?.path
      ? args.artifact
      : { ...args.artifact, sha256: args.artifact?.sha256 ?? knownEtcdSha256(version) };
  const artifact = run(() => resolveArtifact(artifactArgs, etcdReleaseUrl(version), `${field}.artifact`));
  const clientPort = run(() => port(args.clientPort ?? d.clientPort, `${field}.clientPort`));
  const peerPort = run(() => port(args.peerPort ?? d.peerPort, `${field}.peerPort`));
  run(() => check(clientPort !== peerPort, `${field}.peerPort`, `${peerPort} is also the client port`));
  const configDir = run(() => safePath(args.configDir ?? d.configDir, `${field}.configDir`));
  const dataDir = run(() => privateDir(args.dataDir ?? d.dataDir, `${field}.dataDir`));
  const binDir = run(() => safePath(args.binDir ?? d.binDir, `${field}.binDir`));
  const quotaBackendBytes = args.quotaBackendBytes ?? d.quotaBackendBytes;
  run(() => validatePositiveInteger(`${field}.quotaBackendBytes`, quotaBackendBytes));
  const snapshotCount = args.snapshotCount ?? d.snapshotCount;
  run(() => validatePositiveInteger(`${field}.snapshotCount`, snapshotCount));
  const repairGeneration = args.repairGeneration ?? 0;
  run(() => validateCounter(`${field}.repairGeneration`, repairGeneration));
  const { replaceData = false, ...snapshot } = args.restoreFrom ?? {};
  const restoreFrom = args.restoreFrom
    ? run(() => resolveArtifact(snapshot, "", `${field}.restoreFrom`))
    : undefined;
  run(() => validateBoolean(`${field}.restoreFrom.replaceData`, replaceData));
  const backup = members ? run(() => resolveBackup(args.backup, members, `${field}.backup`)) : undefined;
  errors.throwIfAny();
  return {
    name,
    members,
    version,
    artifact,
    serviceManager,
    clientPort,
    peerPort,
    paths: {
      dataDir,
      configDir,
      pkiDir: `${configDir}/pki`,
      binDir,
      libDir: d.libDir,
      cacheDir: d.cacheDir,
      logDir: d.logDir,
      stateDir: d.stateDir,
    },
    deleteData: args.deleteData ?? false,
    restoreFrom,
    restoreReplacesData: restoreFrom !== undefined && replaceData,
    backup: backup!,
    quotaBackendBytes,
    snapshotCount,
    repairGeneration,
  };
}
