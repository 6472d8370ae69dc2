/**
 * What a user gives for etcd on hosts (`EtcdClusterArgs.hosts`) and the values its fields allow.
 * Defaults: ./defaults.ts; resolution: ./resolve.ts; validation: ./validate.ts; resolved types: ./settings.ts.
 */
import { ArtifactSource } from "../../hosts/artifact";
import { ServiceManager } from "../../hosts/service";
import { HostSpec } from "../../hosts/spec";

/** Cluster sizes we accept: odd, so a quorum survives the loss of (n-1)/2 members. */
export const MEMBER_COUNTS = [1, 3, 5, 7];

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
