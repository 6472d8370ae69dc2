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

function connectFirst(
  backends: readonly string[],
  start: number,
  port: number,
  done: (socket: net.Socket | undefined, backend: string) => void,
  tried = 0,
): void {
  if (tried === backends.length) return done(undefined, "");
  const backend = backends[(start + tried) % backends.length];
  const socket = net.connect({ host: backend, port });
  socket.setTimeout(3000);
  socket.once("connect", () => {
    socket.setTimeout(0);
    done(socket, backend);
  });
  const next = () => {
    socket.destroy();
    connectFirst(backends, start, port, done, tried + 1);
  };
  socket.once("error", next);
  socket.once("timeout", next);
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
      client.pause();
      connectFirst(backends, turn++, targetPort, (upstream, backend) => {
        if (!upstream) return void client.destroy();
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
