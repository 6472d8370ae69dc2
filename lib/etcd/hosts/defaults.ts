import { DEFAULT_ETCD_VERSION } from "./release";

/** Defaults of etcd on hosts ({@link EtcdHostsArgs}), in one place. */
export const ETCD_HOSTS_DEFAULTS = {
  version: DEFAULT_ETCD_VERSION,
  serviceManager: "systemd",
  clientPort: 2379,
  peerPort: 2380,
  configDir: "/etc/etcd",
  dataDir: "/var/lib/etcd",
  binDir: "/usr/local/bin",
  quotaBackendBytes: 8 * 1024 ** 3,
  snapshotCount: 10000,
  backup: { dir: "/var/backups/etcd", retain: 7, intervalMinutes: 360 },
  /** Fixed paths of the package's own files on every host. */
  libDir: "/usr/local/lib/pulumi-karmada",
  cacheDir: "/var/cache/pulumi-karmada",
  logDir: "/var/log/pulumi-karmada",
  stateDir: "/run/pulumi-karmada",
} as const;
