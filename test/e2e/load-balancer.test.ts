/**
 * The local estate's load balancer configuration (devkit/lab/loadBalancer.ts, shown to users in
 * docs/hosts.md) run by the real HAProxy of the machine image, in front of two TLS servers on loopback
 * addresses whose `/readyz` the test turns on and off: a backend failing its checks gets no connection,
 * and when every backend fails them at once connections still reach the machines (unchecked), a refused
 * one retried on the other.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as https from "https";
import * as os from "os";
import * as path from "path";
import { haproxyConfig } from "../../devkit/lab/loadBalancer";
import { generateCa, issueLeaf, servingExtensions } from "../../devkit/pki";
import { testbedEnv } from "../../devkit/testbed";
import { waitFor } from "../../devkit/kubeClient";
import { e2eTier } from "../../devkit/engine/tier";

const tier = e2eTier("the load balancer's configuration run by HAProxy (test/e2e/load-balancer.test.ts)", {
  components: ["machine-image"],
});

const LB_ADDRESS = "127.0.41.10";
const PORT = { name: "karmada-apiserver", listenPort: 15443, targetPort: 16443, healthPath: "/readyz" };
const MACHINES = [
  { name: "cp1", address: "127.0.41.1" },
  { name: "cp2", address: "127.0.41.2" },
];

/** A backend machine: serves every path with its name; `/readyz` answers 200 while `ready`. */
interface Backend {
  readonly name: string;
  ready: boolean;
  server: https.Server;
}

/** HAProxy of the machine image, run through the image's own loader and libraries (nothing installed here). */
function startHaproxy(configFile: string): ChildProcess {
  const root = testbedEnv().env.TESTBED_MACHINE_IMAGE;
  const libs = ["usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"].map((d) => path.join(root, d)).join(":");
  return spawn(
    path.join(root, "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
    ["--library-path", libs, path.join(root, "usr/sbin/haproxy"), "-db", "-f", configFile],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** Which machine answered a request through the load balancer, or the connection's error. */
function askThroughLoadBalancer(): Promise<string> {
  return new Promise((resolve) => {
    const req = https.get(
      {
        host: LB_ADDRESS,
        port: PORT.listenPort,
        path: "/api",
        rejectUnauthorized: false,
        agent: false,
        timeout: 3000,
      },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve(res.statusCode === 200 ? body : `HTTP ${res.statusCode}`));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (e) => resolve(`error: ${e.message}`));
  });
}

/** The answers to `n` requests in a row, counted by who answered. */
async function answers(n: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const who = await askThroughLoadBalancer();
    counts[who] = (counts[who] ?? 0) + 1;
  }
  return counts;
}

tier.describe("the load balancer (HAProxy, devkit/lab/loadBalancer.ts)", () => {
  let dir: string;
  let haproxy: ChildProcess;
  let haproxyOutput = "";
  const backends: Backend[] = [];

  const listen = (backend: Backend, address: string) =>
    new Promise<void>((resolve) => backend.server.listen(PORT.targetPort, address, resolve));

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-lb-"));
    generateCa(dir, "load-balancer-test-ca");
    for (const machine of MACHINES) {
      issueLeaf(dir, machine.name, `/CN=${machine.name}`, servingExtensions([`IP:${machine.address}`]), 1);
      const backend: Backend = {
        name: machine.name,
        ready: true,
        server: https.createServer(
          {
            cert: fs.readFileSync(path.join(dir, `${machine.name}.crt`)),
            key: fs.readFileSync(path.join(dir, `${machine.name}.key`)),
          },
          (req, res) => {
            if (req.url === PORT.healthPath) {
              res.writeHead(backend.ready ? 200 : 500).end(backend.ready ? "ok" : "[-]etcd failed");
            } else {
              res.writeHead(200).end(backend.name);
            }
          },
        ),
      };
      await listen(backend, machine.address);
      backends.push(backend);
    }
    const configFile = path.join(dir, "haproxy.cfg");
    // the lab's syslog socket is the machine's; here HAProxy's warnings go to its stderr (-db)
    fs.writeFileSync(configFile, haproxyConfig(LB_ADDRESS, MACHINES, [PORT]).replace(/^ {2}log .*$/gm, ""));
    haproxy = startHaproxy(configFile);
    haproxy.stdout!.on("data", (d: Buffer) => (haproxyOutput += d.toString()));
    haproxy.stderr!.on("data", (d: Buffer) => (haproxyOutput += d.toString()));
    await waitFor(
      "HAProxy serving",
      async () => (await askThroughLoadBalancer()).startsWith("cp"),
      20_000,
      200,
    );
  });

  afterAll(async () => {
    haproxy?.kill("SIGTERM");
    await Promise.all(backends.map((b) => new Promise((resolve) => b.server.close(resolve))));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const setReady = (ready: Record<string, boolean>) => {
    for (const b of backends) b.ready = ready[b.name];
  };
  /** HAProxy's last word on `server`: `UP` or `DOWN` (undefined before it said anything). */
  const lastState = (server: string) =>
    [...haproxyOutput.matchAll(new RegExp(`Server ${PORT.name}/${server} is (UP|DOWN)`, "g"))].pop()?.[1];
  /** Waits until HAProxy says it took `server` out of (or back into) the pool. */
  const awaitState = (server: string, state: "UP" | "DOWN") =>
    waitFor(`${server} ${state}`, async () => lastState(server) === state, 15_000, 100);

  test("both ready: both serve", async () => {
    const counts = await answers(20);
    expect(Object.keys(counts).sort()).toEqual(["cp1", "cp2"]);
  });

  test("a machine failing /readyz leaves the pool: every connection goes to the other", async () => {
    setReady({ cp1: false, cp2: true });
    await awaitState("cp1", "DOWN");
    expect(await answers(20)).toEqual({ cp2: 20 });
  });

  test("every machine failing /readyz at once: connections still reach them (unchecked), none refused", async () => {
    setReady({ cp1: false, cp2: false });
    await awaitState("cp2", "DOWN");
    const counts = await answers(20);
    expect(Object.keys(counts).sort()).toEqual(["cp1", "cp2"]);
  });

  test("…and a machine then gone: its refused connections are retried on the other", async () => {
    const cp2 = backends.find((b) => b.name === "cp2")!;
    await new Promise((resolve) => cp2.server.close(resolve));
    cp2.server.closeAllConnections();
    expect(await answers(20)).toEqual({ cp1: 20 });
  });

  test("a machine ready again is back in the pool, alone serving while the other stays out", async () => {
    setReady({ cp1: true, cp2: false });
    await awaitState("cp1", "UP");
    expect(await answers(20)).toEqual({ cp1: 20 });
  });
});
