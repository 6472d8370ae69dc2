/**
 * The load balancer in front of the control-plane machines: HAProxy (Debian's) on a machine of its own,
 * passing TLS through (mode tcp) and health-checking each backend over HTTPS — karmada-apiserver's and
 * the aggregated API server's `/readyz`, karmada-webhook's `/readyz/` (all readable anonymously). A
 * backend failing three checks gets no new connection; its open ones are left to finish, so a draining
 * API server's requests in flight complete (it closes its connections itself once drained), while a
 * connection to a machine that lost its power is closed by server-side TCP keepalives once idle. A
 * connection that cannot reach a backend is retried on another at once. Every backend failing its checks
 * at once sends connections to all of them unchecked rather than to none (see `uncheckedTwin`). docs/hosts.md shows the same
 * configuration for a user's own machines. Pure: the file's text only.
 */

/** One port the load balancer forwards to the same port set of every backend. */
export interface BalancedPort {
  /** Name of the frontend/backend pair, e.g. `karmada-apiserver`. */
  readonly name: string;
  readonly listenPort: number;
  readonly targetPort: number;
  /** HTTPS path answering 200 while the backend serves. */
  readonly healthPath: string;
}

/** A backend machine. */
export interface BalancedMachine {
  readonly name: string;
  readonly address: string;
}

/** How often each backend is checked (ms), and after how many failures it leaves the pool. */
export const HEALTH_CHECK_INTERVAL_MS = 1000;
/** Three failed checks, not two: a false alarm under load takes a serving backend out of the pool. */
export const HEALTH_CHECK_FALL = 3;
/**
 * How long a check may wait for its answer once connected (ms): a machine that lost its power never
 * answers. Not 1 s: an API server just back in the pool and serving a burst of CRD writes on a loaded
 * machine took longer to answer /readyz and was marked down. Connecting, TLS handshake included, has
 * `timeout connect` (HAProxy takes the shorter of it and the check interval).
 */
export const HEALTH_CHECK_TIMEOUT_MS = 2000;

/**
 * The name of a backend machine's unchecked twin: a `backup` server HAProxy uses only when every checked
 * server is out of the pool. When all of them fail their checks at once, the checks (a host too busy to
 * finish a TLS handshake in time) are the likelier fault than every machine at once; the load balancer
 * then sends connections to all machines as they are (Envoy's "panic routing"), retrying a refused one on
 * the next, instead of refusing every client.
 */
export const uncheckedTwin = (machine: string) => `${machine}-unchecked`;
/**
 * The longest HAProxy takes to take a machine that stopped answering out of its pool: HEALTH_CHECK_FALL
 * checks, each up to its timeout, at most an interval apart.
 */
export const HEALTH_CHECK_DETECTION_MS =
  HEALTH_CHECK_FALL * (HEALTH_CHECK_INTERVAL_MS + HEALTH_CHECK_TIMEOUT_MS);

/**
 * Server-side TCP keepalive (s): idle time before the first probe, interval, probes. A connection to a
 * machine that lost its power (a watch waiting for events) is closed after about idle + interval × count,
 * and its client reconnects to a machine that serves. The load balancer does not cut sessions itself
 * when it marks a backend down (`on-marked-down shutdown-sessions`): that also cut the requests a
 * draining API server was still answering, each one a failed request in a rolling restart.
 */
export const SERVER_KEEPALIVE = { idleSeconds: 2, intervalSeconds: 1, count: 3 } as const;

/**
 * The ports of a Karmada control plane on hosts behind the load balancer: karmada-apiserver, the webhook
 * (karmada-apiserver calls it through the external endpoint), and the Cluster API's aggregated API server
 * on 443 (its `apiServiceHosts` front: karmada-apiserver's own Endpoints routing has no health checks, so
 * a machine lost for good would fail every other request to the Cluster API until it is replaced).
 */
export const CONTROL_PLANE_PORTS: readonly BalancedPort[] = [
  { name: "karmada-apiserver", listenPort: 5443, targetPort: 5443, healthPath: "/readyz" },
  { name: "karmada-webhook", listenPort: 8443, targetPort: 8443, healthPath: "/readyz/" },
  { name: "karmada-aggregated-apiserver", listenPort: 443, targetPort: 7443, healthPath: "/readyz" },
];

const NAME = /^[a-z0-9][a-z0-9-]*$/;

/** `/etc/haproxy/haproxy.cfg` balancing `ports` over `backends`, listening on `address`. */
export function haproxyConfig(
  address: string,
  backends: readonly BalancedMachine[],
  ports: readonly BalancedPort[] = CONTROL_PLANE_PORTS,
): string {
  if (backends.length === 0) throw new Error("the load balancer needs at least one backend");
  for (const n of [...backends.map((b) => b.name), ...ports.map((p) => p.name)]) {
    if (!NAME.test(n)) throw new Error(`${JSON.stringify(n)} is not a usable HAProxy name`);
  }
  const servers = backends.flatMap((b) => [b.name, uncheckedTwin(b.name)]);
  const twice = servers.find((n, i) => servers.indexOf(n) !== i);
  if (twice)
    throw new Error(
      `two backends would be named ${JSON.stringify(twice)} (each has a twin <name>-unchecked)`,
    );
  const sections = ports.flatMap((p) => [
    `frontend ${p.name}`,
    `  bind ${address}:${p.listenPort}`,
    `  default_backend ${p.name}`,
    "",
    `backend ${p.name}`,
    `  option httpchk GET ${p.healthPath}`,
    "  http-check expect status 200",
    ...backends.map((b) => `  server ${b.name} ${b.address}:${p.targetPort} check check-ssl verify none`),
    // every machine, unchecked, once no checked one is left (see uncheckedTwin)
    "  option allbackups",
    ...backends.map((b) => `  server ${uncheckedTwin(b.name)} ${b.address}:${p.targetPort} backup`),
    "",
  ]);
  return [
    "# Written by devkit/lab/loadBalancer.ts: TLS passes through; backends are health-checked over HTTPS.",
    "global",
    "  log /dev/log local0",
    "  maxconn 4096",
    "",
    "defaults",
    "  mode tcp",
    "  log global",
    "  option tcplog",
    // a backend that refuses or never answers a connection: the next attempt goes to another one
    "  option redispatch 1",
    "  retries 3",
    "  timeout connect 500ms",
    // a machine that lost its power: its idle connections are closed (see SERVER_KEEPALIVE)
    "  option srvtcpka",
    `  srvtcpka-idle ${SERVER_KEEPALIVE.idleSeconds}s`,
    `  srvtcpka-intvl ${SERVER_KEEPALIVE.intervalSeconds}s`,
    `  srvtcpka-cnt ${SERVER_KEEPALIVE.count}`,
    // watches stay open for long: the API server ends them itself (its request timeout)
    "  timeout client 1h",
    "  timeout server 1h",
    `  timeout check ${HEALTH_CHECK_TIMEOUT_MS}ms`,
    `  default-server inter ${HEALTH_CHECK_INTERVAL_MS}ms fastinter ${HEALTH_CHECK_INTERVAL_MS / 2}ms fall ${HEALTH_CHECK_FALL} rise 2`,
    "",
    ...sections,
  ].join("\n");
}
