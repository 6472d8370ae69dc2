/**
 * TEST BED ONLY: a stand-in for the external VIP / load balancer in front of the control-plane hosts.
 * Production puts a real VIP (keepalived, a cloud load balancer, DNS) there; the loopback test bed has
 * none, so this forwarder listens on one more loopback address and passes each TCP connection to the
 * first backend that accepts it, starting from the next one in turn (round robin with failover), so
 * that one control-plane host being down or restarting is invisible to clients.
 */
import * as net from "net";

/** One forwarded port: `listenPort` on the VIP → `targetPort` on every backend. */
export interface ForwardedPort {
  readonly listenPort: number;
  readonly targetPort: number;
}

/** A running forwarder. */
export interface TcpVip {
  readonly address: string;
  /** Connections passed to each backend address, for tests. */
  readonly connections: Map<string, number>;
  close(): Promise<void>;
}

/** How long one backend may take to accept a connection before the next is tried (generous: a loaded test machine). */
const CONNECT_TIMEOUT_MS = 10_000;

function connectFirst(
  backends: readonly string[],
  start: number,
  port: number,
  done: (socket: net.Socket | undefined, backend: string, failures: string[]) => void,
  tried = 0,
  failures: string[] = [],
): void {
  if (tried === backends.length) return done(undefined, "", failures);
  const backend = backends[(start + tried) % backends.length];
  const socket = net.connect({ host: backend, port });
  socket.setTimeout(CONNECT_TIMEOUT_MS);
  socket.once("connect", () => {
    socket.setTimeout(0);
    done(socket, backend, failures);
  });
  const next = (why: string) => {
    socket.destroy();
    connectFirst(backends, start, port, done, tried + 1, [...failures, `${backend}:${port} ${why}`]);
  };
  socket.once("error", (e) => next(e.message));
  socket.once("timeout", () => next("timed out"));
}

/** Starts forwarding `ports` from `address` to `backends`. */
export async function startTcpVip(
  address: string,
  backends: readonly string[],
  ports: readonly ForwardedPort[],
): Promise<TcpVip> {
  const connections = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  let turn = 0;
  const servers = ports.map(({ targetPort }) =>
    net.createServer((client) => {
      sockets.add(client);
      client.on("close", () => sockets.delete(client));
      client.on("error", () => client.destroy()); // a client reset must not end the daemon
      client.pause();
      connectFirst(backends, turn++, targetPort, (upstream, backend, failures) => {
        if (!upstream) {
          console.error(
            `${new Date().toISOString()} no backend accepted :${targetPort}: ${failures.join("; ")}`,
          );
          return void client.destroy();
        }
        connections.set(backend, (connections.get(backend) ?? 0) + 1);
        sockets.add(upstream);
        upstream.on("close", () => sockets.delete(upstream));
        client.on("error", () => upstream.destroy());
        upstream.on("error", () => client.destroy());
        client.pipe(upstream).pipe(client);
        client.resume();
      });
    }),
  );
  await Promise.all(
    servers.map(
      (server, i) =>
        new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(ports[i].listenPort, address, resolve);
        }),
    ),
  );
  return {
    address,
    connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}
