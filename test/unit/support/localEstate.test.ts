/**
 * The local estate refuses to start over another one on its loopback addresses (an `npm start` estate
 * left up, a suite or bench still running): the endpoints that already answer are named.
 */
import * as net from "net";
import { takenEstateEndpoints } from "../../support/engine/localEstate";

/** A TCP server on `address` at a free port; closed by the returned function. */
async function listen(address: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("takenEstateEndpoints", () => {
  test("names the hosts' sshd and VIP endpoints that answer, and only those", async () => {
    const busy = await listen("127.0.98.200");
    // a port that was free a moment ago: nothing answers there
    const freed = await listen("127.0.98.201");
    await freed.close();
    try {
      const layout = {
        etcdHosts: [{ name: "etcd1", address: "127.0.98.200", port: busy.port }],
        controlPlaneHosts: [{ name: "cp1", address: "127.0.98.201", port: freed.port }],
        vip: "127.0.98.202",
        members: [],
      };
      expect(await takenEstateEndpoints(layout)).toEqual([`127.0.98.200:${busy.port}`]);
    } finally {
      await busy.close();
    }
  });

  test("nothing is taken when nothing answers", async () => {
    const freed = await listen("127.0.98.203");
    await freed.close();
    const layout = {
      etcdHosts: [],
      controlPlaneHosts: [{ name: "cp1", address: "127.0.98.203", port: freed.port }],
      vip: "127.0.98.204",
      members: [],
    };
    expect(await takenEstateEndpoints(layout)).toEqual([]);
  });
});
