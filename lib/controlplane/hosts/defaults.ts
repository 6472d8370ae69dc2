/** Hosts mode's defaults, in one place (resolve.ts applies them). */

export const CONTROL_PLANE_HOSTS_DEFAULTS = {
  serviceManager: "systemd",
  /** Seconds a host step waits for a started component to be healthy. */
  healthTimeoutSeconds: 120,
  /**
   * Drain of karmada-apiserver (`--shutdown-delay-duration`): behind a load balancer (several machines)
   * above HAProxy's default detection (2 s × 3 down, × 2 up); a lone machine has no one to drain to.
   */
  apiServerDrainSeconds: (machines: number): number => (machines > 1 ? 10 : 0),
  bindAllInterfaces: false,
  binDir: "/usr/local/bin",
  configDir: "/etc/karmada",
  cacheDir: "/var/cache/pulumi-karmada",
  logDir: "/var/log/pulumi-karmada",
  stateDir: "/run/pulumi-karmada",
} as const;

/** Longest drain: one host's restart may not take minutes. */
export const MAX_API_SERVER_DRAIN_SECONDS = 120;
