/**
 * etcd on hosts over real SSH with real etcd: 3-member mTLS cluster, 10,000 keys through a 3→5→3
 * membership change with a background writer and quorum checks after every command, one member killed.
 */
import * as http from "http";
import { BackgroundWriter, EtcdTestClient } from "../support/hosts/etcdClient";
import { EtcdHostsFixture, startEtcdHostsFixture } from "../support/hosts/etcdFixture";
import { killScriptProcesses } from "../support/hosts/testbed";
import * as fs from "fs";
import * as path from "path";

jest.setTimeout(900_000);

const KEYS = 10_000;
const FIRST = ["m1", "m2", "m3"];
const ALL = ["m1", "m2", "m3", "m4", "m5"];
const context = { token: "etcd-hosts-e2e", bootstrapMembers: FIRST };

let fx: EtcdHostsFixture;
let client: EtcdTestClient;

beforeAll(async () => {
  fx = await startEtcdHostsFixture({ prefix: "127.0.1.", count: 5 });
});

afterAll(async () => {
  await fx?.driver.destroy().catch((e) => console.error(e));
  await fx?.stop();
});

function plainHttp(url: string): Promise<string> {
  return new Promise((resolve) => {
    http
      .get(url, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve(`HTTP ${res.statusCode}: ${body}`));
      })
      .on("error", (e) => resolve(`error: ${e.message}`));
  });
}

test("bootstraps a healthy 3-member cluster with TLS on client and peer traffic", async () => {
  const { ran, plan } = await fx.deploy(FIRST, context);
  expect(ran).toEqual(plan.commands.map((c) => c.id));
  client = fx.client(FIRST);
  const members = await client.members();
  expect(members.map((m) => m.name).sort()).toEqual(FIRST);
  expect(members.every((m) => m.peerURLs.every((u) => u.startsWith("https://")))).toBe(true);
  for (const endpoint of client.endpoints) {
    await expect(client.request(endpoint, "/v3/maintenance/status", {})).resolves.toHaveProperty("version");
  }
  // Re-applying an unchanged plan runs nothing (as `pulumi up` would); re-running a script changes nothing.
  expect((await fx.deploy(FIRST, context)).ran).toEqual([]);
});

test("plain HTTP and clients without a certificate are refused", async () => {
  const reply = await plainHttp("http://127.0.1.2:2379/v3/kv/range");
  // Go's TLS listener answers plain HTTP with 400 "client sent an HTTP request to an HTTPS server".
  expect(reply).toMatch(/^(HTTP 400|error: )/);
  const noCert = new EtcdTestClient(["https://127.0.1.2:2379"], { ca: fx.pki.caCert });
  await expect(noCert.request("https://127.0.1.2:2379", "/v3/kv/range", { key: "YQ==" })).rejects.toThrow(
    /certificate|alert|socket hang up|ECONNRESET/i,
  );
  noCert.close();
});

test("10,000 keys survive scaling 3→5→3 with quorum kept throughout", async () => {
  await client.putMany("k/", KEYS);
  expect(await client.count("k/")).toBe(KEYS);
  const writer = new BackgroundWriter(fx.client(FIRST));
  const quorumChecks: string[] = [];
  const checkQuorum = async (id: string) => {
    // A linearizable read needs a quorum; every surviving member must answer.
    expect(await client.count("k/")).toBe(KEYS);
    quorumChecks.push(id);
  };
  const driver = fx.driver;
  driver.afterCommand = checkQuorum;
  try {
    const up = await fx.deploy(ALL, context);
    expect(up.ran).toEqual(expect.arrayContaining(["m4-member", "m5-member", "cluster"]));
    const five = await client.members();
    expect(five.map((m) => m.name).sort()).toEqual(ALL);
    expect(five.some((m) => m.isLearner)).toBe(false);
    const down = await fx.deploy(FIRST, context);
    expect(down.deleted).toEqual(expect.arrayContaining(["m4-member", "m5-member"]));
    expect((await client.members()).map((m) => m.name).sort()).toEqual(FIRST);
  } finally {
    driver.afterCommand = undefined;
    await writer.stop();
  }
  expect(quorumChecks.length).toBeGreaterThan(5);
  expect(writer.failed).toEqual([]);
  expect(writer.ok).toBeGreaterThan(20);
  expect(await client.count("k/")).toBe(KEYS);
  // Removed members keep their data dir (deleteData is false) and no longer run.
  for (const name of ["m4", "m5"]) {
    const root = fx.bed.hosts.find((h) => h.name === name)!.root;
    expect(fs.existsSync(path.join(root, "var/lib/etcd/member"))).toBe(true);
    expect(fs.existsSync(path.join(root, "run/pulumi-karmada/pk-etcd/supervisor.pid"))).toBe(false);
  }
});

test("with one member killed, reads and writes are still served; the supervisor restarts a crashed etcd", async () => {
  const m3 = fx.bed.hosts.find((h) => h.name === "m3")!;
  killScriptProcesses(m3.root);
  await new Promise((r) => setTimeout(r, 500));
  const survivors = fx.client(["m1", "m2"]);
  await survivors.put("after-kill", "yes");
  expect(await survivors.get("after-kill")).toBe("yes");
  expect(await survivors.count("k/")).toBe(KEYS);
  // Re-running m3's member script (what a repair `pulumi up --target` does) brings it back.
  const settings = fx.settings(FIRST);
  const { planEtcdHosts } = await import("../../lib/etcd/hosts/plan");
  const plan = planEtcdHosts(settings, context);
  const m3Member = plan.commands.find((c) => c.id === "m3-member")!;
  const rerun = await fx.driver.run(settings.members[2], m3Member.create, "");
  if (rerun.code !== 0) throw new Error(`m3-member re-run failed: ${rerun.stderr}`);
  expect(rerun.stdout).toContain("mode: run");
  const m3Client = fx.client(["m3"]);
  expect(await m3Client.get("after-kill")).toBe("yes");
  // Kill only etcd (not its supervisor): it comes back by itself.
  const m2 = fx.bed.hosts.find((h) => h.name === "m2")!;
  const childPid = Number(
    fs.readFileSync(path.join(m2.root, "run/pulumi-karmada/pk-etcd/child.pid"), "utf8"),
  );
  process.kill(childPid, "SIGKILL");
  const deadline = Date.now() + 30_000;
  let back = false;
  while (!back && Date.now() < deadline) {
    back = await fx
      .client(["m2"])
      .request("https://127.0.1.3:2379", "/v3/kv/range", {
        key: Buffer.from("after-kill").toString("base64"),
      })
      .then(() => true)
      .catch(() => false);
    if (!back) await new Promise((r) => setTimeout(r, 500));
  }
  expect(back).toBe(true);
});
