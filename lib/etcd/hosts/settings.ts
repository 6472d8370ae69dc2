import { ArtifactSource, ResolvedArtifact, resolveArtifact } from "../../hosts/artifact";
import { SERVICE_MANAGERS, ServiceManager } from "../../hosts/service";
import { safePath } from "../../hosts/shell";
import { HostSpec, ResolvedHost, resolveHosts } from "../../hosts/spec";
import { ErrorCollector, check, show } from "../../validation/errors";
import { DEFAULT_ETCD_VERSION, etcdReleaseUrl, knownEtcdSha256 } from "./release";

/** Periodic snapshots of a hosts-mode etcd cluster. */
export interface EtcdBackupArgs {
  /**
   * Install the periodic snapshot job.
   * @default true
   */
  enabled?: boolean;
  /**
   * Member whose host runs the job and keeps the snapshots (it snapshots from any healthy member).
   * @default the first host
   */
  host?: string;
  /**
   * Directory for snapshots on that host.
   * @default "/var/backups/etcd"
   */
  dir?: string;
  /**
   * Snapshots kept (older ones are deleted after a successful new one).
   * @default 7
   */
  retain?: number;
  /**
   * Minutes between snapshots.
   * @default 360
   */
  intervalMinutes?: number;
  /**
   * Command run after each verified snapshot to ship it off the host, e.g. an S3-compatible upload:
   * `aws s3 cp "$SNAPSHOT_FILE" s3://bucket/etcd/ --endpoint-url https://minio.example`. Gets
   * `SNAPSHOT_FILE` and `SNAPSHOT_SHA256` in its environment; read credentials from files, not argv.
   */
  uploadCommand?: string;
}

/** Where a restore reads its snapshot, and which members it restores. */
export interface EtcdSnapshotSource {
  /** URL of the snapshot file (as `etcdctl snapshot save` writes it). Requires `sha256`. */
  url?: string;
  /** Path of the snapshot file, the same on every host (relative to its root). */
  path?: string;
  /** Hex SHA-256 of the snapshot file; required for URLs, checked for paths when given. */
  sha256?: string;
  /**
   * Also restore members that hold data of another cluster: the cluster is rolled back in place.
   * Each such member checks the snapshot first, then is stopped (killed if still running after 1 s: its
   * data is only a fallback now), its data dir moved aside to `<dataDir>.before-restore-<time>` (kept,
   * never erased) and restored. Without it, only members with an empty data dir are restored (after a
   * destroy, move the data dirs aside by hand).
   * A member restored by this very restore (its data carries this restore's cluster token) is left
   * alone, so later `up`s restore nothing again; set `restoreFrom` anew to restore again.
   * @default false
   */
  replaceData?: boolean;
}

/** Inputs of etcd on hosts (plain values except the SSH keys inside `hosts`). */
export interface EtcdHostsArgs {
  /** Members, one per host; 1, 3, 5 or 7. Order matters: membership changes follow it. */
  hosts: HostSpec[];
  /**
   * etcd release, e.g. `v3.5.21`; the installed binary must report it.
   * @default "v3.5.21"
   */
  version?: string;
  /** Where binaries come from. @default the upstream GitHub release tarball (checksum known for v3.5.21) */
  artifact?: ArtifactSource;
  /**
   * What keeps etcd running: `systemd`, or the bundled `supervisor` for hosts without systemd.
   * @default "systemd"
   */
  serviceManager?: ServiceManager;
  /**
   * TCP port (1–65535) each member serves clients on, `https://<host address>:<clientPort>`: the URLs
   * karmada-apiserver's `--etcd-servers` lists. Must differ from `peerPort` and be free on every host
   * (the preflight step checks).
   * @default 2379
   */
  clientPort?: number;
  /**
   * TCP port (1–65535) members replicate to each other on, `https://<host address>:<peerPort>`. Must
   * differ from `clientPort`, be free on every host and be reachable between the hosts.
   * @default 2380
   */
  peerPort?: number;
  /**
   * etcd's data directory on each host (below the host's `root`); it is made private (0700) to the
   * service user, so a shared system directory such as `/var/lib` is refused.
   * @default "/var/lib/etcd"
   */
  dataDir?: string;
  /** Config and certificates (`pki/` below it). @default "/etc/etcd" */
  configDir?: string;
  /**
   * Directory on each host (below its `root`) where `etcd`, `etcdctl` and, when the release has it,
   * `etcdutl` are installed; the service runs `etcd` from there.
   * @default "/usr/local/bin"
   */
  binDir?: string;
  /**
   * When a member is removed (or the component deleted), move its data dir aside to
   * `<dataDir>.deleted-<time>`. Otherwise the data dir is left untouched, and the next `up` starts the
   * member on it (the same member, every key it held).
   * @default false
   */
  deleteData?: boolean;
  /**
   * Snapshot to restore a NEW cluster from (new cluster token, fresh member list, new member IDs): a
   * path on each host, or a URL with `sha256`. Certificates, configuration and hosts are kept.
   */
  restoreFrom?: EtcdSnapshotSource;
  /**
   * Periodic snapshots kept on one member host (see `EtcdCluster.snapshotCommand` for one on demand).
   * @default - enabled: every 360 minutes into "/var/backups/etcd" on the first host, 7 kept
   */
  backup?: EtcdBackupArgs;
  /**
   * Backend size limit in bytes, a positive integer (etcd's `quota-backend-bytes`): once the database
   * reaches it, etcd raises a NOSPACE alarm and accepts only reads and deletes until it is compacted,
   * defragmented and the alarm disarmed.
   * @default 8589934592 (8 GiB)
   */
  quotaBackendBytes?: number;
  /**
   * Committed transactions after which a member writes a snapshot of its state to disk and trims its
   * in-memory log (etcd's `snapshot-count`), a positive integer: lower uses less memory, higher writes
   * to disk less often.
   * @default 10000
   */
  snapshotCount?: number;
  /**
   * "Repair now" counter: bump it (0 → 1 → 2 …) to re-run every member's start step on the next
   * `pulumi up`. Pulumi re-runs a command only when its inputs change, so an `up` alone never notices a
   * member whose service died (its supervisor killed, a host without systemd rebooted); the re-run
   * starts such members and waits until they are healthy, and leaves running members alone.
   * @default 0
   */
  repairGeneration?: number;
}

/** Backup settings after defaults. */
export interface EtcdBackupSettings {
  readonly enabled: boolean;
  readonly host: string;
  readonly dir: string;
  readonly retain: number;
  readonly intervalSeconds: number;
  readonly uploadCommand?: string;
}

/** Paths on every member host, before rooting. */
export interface EtcdHostPaths {
  readonly dataDir: string;
  readonly configDir: string;
  readonly pkiDir: string;
  readonly binDir: string;
  readonly libDir: string;
  readonly cacheDir: string;
  readonly logDir: string;
  readonly stateDir: string;
}

/** Resolved etcd-on-hosts settings: every script is a pure function of these. */
export interface EtcdHostsSettings {
  /** Pulumi name of the cluster; prefixes command names. */
  readonly name: string;
  readonly members: readonly ResolvedHost[];
  readonly version: string;
  readonly artifact: ResolvedArtifact;
  readonly serviceManager: ServiceManager;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly paths: EtcdHostPaths;
  readonly deleteData: boolean;
  readonly restoreFrom?: ResolvedArtifact;
  /** `restoreFrom.replaceData`: members holding another cluster's data are restored too. */
  readonly restoreReplacesData: boolean;
  readonly backup: EtcdBackupSettings;
  readonly quotaBackendBytes: number;
  readonly snapshotCount: number;
  readonly repairGeneration: number;
}

/** Cluster sizes we accept: odd, so a quorum survives the loss of (n-1)/2 members. */
export const MEMBER_COUNTS = [1, 3, 5, 7];

/** System directories many programs share: the member and backup scripts make their directory 0700. */
const SHARED_DIRS = new Set([
  "/",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/mnt",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/srv",
  "/sys",
  "/tmp",
  "/usr",
  "/usr/bin",
  "/usr/lib",
  "/usr/local",
  "/usr/local/bin",
  "/usr/local/lib",
  "/usr/sbin",
  "/var",
  "/var/backups",
  "/var/cache",
  "/var/lib",
  "/var/log",
  "/var/tmp",
]);

/** A directory the scripts own (made 0700, owned by the service user): never a shared system one. */
function privateDir(value: string, field: string): string {
  const path = safePath(value, field);
  check(
    !SHARED_DIRS.has(path),
    field,
    `${show(path)} is a shared system directory; it would be made private (0700)`,
    `a directory of its own, e.g. ${path === "/" ? "" : path}/etcd`,
  );
  return path;
}

function port(value: number, field: string): number {
  check(
    Number.isInteger(value) && value >= 1 && value <= 65535,
    field,
    `port ${show(value)} out of range`,
    "1-65535",
  );
  return value;
}

function resolveBackup(
  args: EtcdBackupArgs | undefined,
  members: readonly ResolvedHost[],
  field: string,
): EtcdBackupSettings {
  const given = args ?? {};
  const host = given.host ?? members[0].name;
  check(
    members.some((m) => m.name === host),
    `${field}.host`,
    `${show(host)} is not one of the hosts`,
    members.map((m) => m.name).join(", "),
  );
  const retain = given.retain ?? 7;
  check(
    Number.isInteger(retain) && retain >= 1 && retain <= 1000,
    `${field}.retain`,
    `${show(retain)} out of range`,
    "1-1000",
  );
  const minutes = given.intervalMinutes ?? 360;
  check(
    Number.isInteger(minutes) && minutes >= 1,
    `${field}.intervalMinutes`,
    `${show(minutes)} must be a positive integer`,
  );
  if (given.uploadCommand !== undefined) {
    check(given.uploadCommand.trim() !== "", `${field}.uploadCommand`, "is empty");
  }
  return {
    enabled: given.enabled ?? true,
    host,
    dir: privateDir(given.dir ?? "/var/backups/etcd", `${field}.dir`),
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
  // independent checks all run; the first failure of each is reported together
  const errors = new ErrorCollector();
  const run = <T>(fn: () => T): T => errors.attempt(fn) as T;
  const members = run(() => {
    const resolved = resolveHosts(args.hosts, `${field}.hosts`);
    check(
      MEMBER_COUNTS.includes(resolved.length),
      `${field}.hosts`,
      `${resolved.length} members cannot keep a majority through failures`,
      MEMBER_COUNTS.join(", "),
    );
    return resolved;
  });
  const version = args.version ?? DEFAULT_ETCD_VERSION;
  run(() =>
    check(
      typeof version === "string" && /^v3\.\d+\.\d+$/.test(version),
      `${field}.version`,
      `${show(version)} is not an etcd 3 release`,
      "v3.X.Y",
    ),
  );
  const serviceManager = args.serviceManager ?? "systemd";
  run(() =>
    check(
      SERVICE_MANAGERS.includes(serviceManager),
      `${field}.serviceManager`,
      `${show(serviceManager)} is not a service manager`,
      SERVICE_MANAGERS.join(", "),
    ),
  );
  if (serviceManager === "systemd" && members) {
    members.forEach((m, i) =>
      run(() =>
        check(
          m.root === "/",
          `${field}.hosts[${i}].root`,
          `systemd only sees units under "/", not ${show(m.root)}`,
          '"/" or serviceManager "supervisor"',
        ),
      ),
    );
  }
  const artifactArgs =
    args.artifact?.url || args.artifact?.path
      ? args.artifact
      : { ...args.artifact, sha256: args.artifact?.sha256 ?? knownEtcdSha256(version) };
  const artifact = run(() => resolveArtifact(artifactArgs, etcdReleaseUrl(version), `${field}.artifact`));
  const clientPort = run(() => port(args.clientPort ?? 2379, `${field}.clientPort`));
  const peerPort = run(() => port(args.peerPort ?? 2380, `${field}.peerPort`));
  run(() => check(clientPort !== peerPort, `${field}.peerPort`, `${peerPort} is also the client port`));
  const configDir = run(() => safePath(args.configDir ?? "/etc/etcd", `${field}.configDir`));
  const dataDir = run(() => privateDir(args.dataDir ?? "/var/lib/etcd", `${field}.dataDir`));
  const binDir = run(() => safePath(args.binDir ?? "/usr/local/bin", `${field}.binDir`));
  const quotaBackendBytes = args.quotaBackendBytes ?? 8 * 1024 ** 3;
  run(() =>
    check(
      Number.isInteger(quotaBackendBytes) && quotaBackendBytes > 0,
      `${field}.quotaBackendBytes`,
      `${show(quotaBackendBytes)} must be a positive integer`,
    ),
  );
  const snapshotCount = args.snapshotCount ?? 10000;
  run(() =>
    check(
      Number.isInteger(snapshotCount) && snapshotCount > 0,
      `${field}.snapshotCount`,
      `${show(snapshotCount)} must be a positive integer`,
    ),
  );
  const repairGeneration = args.repairGeneration ?? 0;
  run(() =>
    check(
      Number.isInteger(repairGeneration) && repairGeneration >= 0,
      `${field}.repairGeneration`,
      `${show(repairGeneration)} must be a non-negative integer`,
    ),
  );
  const { replaceData = false, ...snapshot } = args.restoreFrom ?? {};
  const restoreFrom = args.restoreFrom
    ? run(() => resolveArtifact(snapshot, "", `${field}.restoreFrom`))
    : undefined;
  run(() =>
    check(
      typeof replaceData === "boolean",
      `${field}.restoreFrom.replaceData`,
      `${show(replaceData)} is not a boolean`,
      "true, false",
    ),
  );
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
      libDir: "/usr/local/lib/pulumi-karmada",
      cacheDir: "/var/cache/pulumi-karmada",
      logDir: "/var/log/pulumi-karmada",
      stateDir: "/run/pulumi-karmada",
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
