/**
 * Faults over real SSH: each produces a message naming host and step, and re-running after the fix
 * converges. Port clash, wrong key, non-writable data dir, unreachable host, host listed twice.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import { resolveEtcdHostsSettings } from "../../lib/etcd/hosts/settings";
import { ConfigError } from "../../lib/validation/errors";
import { EtcdHostsFixture, startEtcdHostsFixture } from "../support/hosts/etcdFixture";

jest.setTimeout(900_000);

const THREE = ["m1", "m2", "m3"];
const FIVE = ["m1", "m2", "m3", "m4", "m5"];
const context = { token: "faults", bootstrapMembers: THREE };
let fx: EtcdHostsFixture;

beforeAll(async () => {
  // m4 gets no sshd: it is unreachable until the test starts one.
  fx = await startEtcdHostsFixture({ prefix: "127.0.2.", count: 5, withoutSshd: [3] });
});

afterAll(async () => {
  const dataDir = path.join(fx.bed.hosts[2].root, "var/lib/etcd");
  if (fs.existsSync(dataDir)) execFileSync("chattr", ["-i", dataDir]);
  await fx?.driver.destroy().catch((e) => console.error(e));
  await fx?.stop();
});

test("a host listed twice is a ConfigError naming it", () => {
  const [m1, m2] = fx.hostSpecs(["m1", "m2"]);
  const sameName = () =>
    resolveEtcdHostsSettings("etcd", {
      hosts: [m1, m2, { ...m1, address: "127.0.2.9" }],
      serviceManager: "supervisor",
    });
  expect(sameName).toThrow(ConfigError);
  expect(sameName).toThrow('invalid etcd.hosts[2].name: host "m1" is listed twice (also etcd.hosts[0])');
  const sameAddress = () =>
    resolveEtcdHostsSettings("etcd", {
      hosts: [m1, m2, { ...m2, name: "m9" }],
      serviceManager: "supervisor",
    });
  expect(sameAddress).toThrow(
    'invalid etcd.hosts[2].address: host "m9" is listed twice: 127.0.2.3:2222 is also etcd.hosts[1] ("m2")',
  );
});

test("port clash, wrong key, non-writable data dir: each named, each fixed, then the cluster converges", async () => {
  // Fault 1: something already listens on m1's peer port.
  const squatter = net.createServer().listen(2380, "127.0.2.2");
  await new Promise((r) => squatter.once("listening", r));
  // Fault 2: m2 is configured with a key its sshd does not accept.
  const wrongKeyPath = path.join(fx.bed.dir, "wrong_key");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrongKeyPath]);
  const wrongKey = fs.readFileSync(wrongKeyPath, "utf8");
  const withWrongKey = fx.hostSpecs(THREE).map((h) => (h.name === "m2" ? { ...h, privateKey: wrongKey } : h));
  // Fault 3: m3's data dir cannot be written (immutable: root ignores mode bits).
  const dataDir = path.join(fx.bed.hosts[2].root, "var/lib/etcd");
  fs.mkdirSync(dataDir, { recursive: true });
  execFileSync("chattr", ["+i", dataDir]);

  await expect(fx.deploy(THREE, context, { hosts: withWrongKey })).rejects.toThrow(
    "pulumi-karmada: m1: check-ports: port 2380 on 127.0.2.2 is already in use (etcd peer port)",
  );
  await new Promise((r) => squatter.close(r));

  await expect(fx.deploy(THREE, context, { hosts: withWrongKey })).rejects.toThrow(
    /^pulumi-karmada: m2: preflight: SSH authentication failed \(wrong private key or user\?\) \(ssh 127\.0\.2\.3:2222: .*Permission denied/,
  );

  await expect(fx.deploy(THREE, context)).rejects.toThrow(
    `pulumi-karmada: m3: check-data-dir: data dir ${dataDir} is not writable`,
  );
  execFileSync("chattr", ["-i", dataDir]);

  const { ran } = await fx.deploy(THREE, context);
  expect(ran).toEqual(expect.arrayContaining(["m3-preflight", "m3-member", "cluster"]));
  expect(ran).not.toContain("m1-preflight"); // done before, unchanged: not re-run
  const client = fx.client(THREE);
  await client.put("converged", "yes");
  expect((await client.members()).map((m) => m.name).sort()).toEqual(THREE);
});

test("an unreachable host is named; once it answers, re-running converges to 5 members", async () => {
  await expect(fx.deploy(FIVE, context)).rejects.toThrow(
    /^pulumi-karmada: m4: preflight: host unreachable \(ssh 127\.0\.2\.5:2222: .*Connection refused/,
  );
  await fx.bed.startSshd("m4");
  const { ran } = await fx.deploy(FIVE, context);
  expect(ran).toEqual(expect.arrayContaining(["m4-member", "m5-member", "cluster"]));
  const client = fx.client(FIVE);
  const members = await client.members();
  expect(members.map((m) => m.name).sort()).toEqual(FIVE);
  expect(members.some((m) => m.isLearner)).toBe(false);
  expect(await client.get("converged")).toBe("yes");
});
