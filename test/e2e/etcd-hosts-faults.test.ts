/**
 * Faults of etcd on hosts under the real `pulumi up`: a secret SSH key that does not parse fails the
 * `up` naming its field with nothing built from it; one update meets a port clash (m1), a wrong SSH
 * key (m2) and a stopped sshd (m3); the error names each host, and once fixed the next `up` converges
 *. A host listed twice is refused before anything runs.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import { resolveEtcdHostsSettings } from "../../lib/etcd/hosts/resolve";
import { ConfigError } from "../../lib/validation/errors";
import { e2eTier } from "../../devkit/engine/tier";
import { EtcdStack, startEtcdStack } from "../../devkit/hosts/etcdStack";

jest.setTimeout(900_000);

const THREE = ["m1", "m2", "m3"];

const tier = e2eTier("etcd on hosts: faults (test/e2e/etcd-hosts-faults.test.ts)", {
  binaries: ["etcd", "pulumi", "pulumi-language-nodejs"],
  plugins: ["command", "tls", "random"],
});

/** Lines of a failed update's output that mention `needle`, for the test log. */
const linesWith = (message: string, needle: string) =>
  message
    .split("\n")
    .filter((l) => l.includes(needle) && /error|fail|pulumi-karmada:/i.test(l))
    .map((l) => l.trim().slice(0, 300));

tier.describe("etcd on hosts: faults", () => {
  let estate: EtcdStack;

  beforeAll(async () => {
    estate = await startEtcdStack("etcd-faults", { prefix: "127.0.2.", count: 3 });
  });

  afterAll(async () => {
    if (estate) console.log(`engine runs (s): ${JSON.stringify(estate.timings)}`);
    await estate?.stop();
  });

  test("a host listed twice is a ConfigError naming it", () => {
    const [m1, m2] = estate.hosts(["m1", "m2"]);
    const sameName = () =>
      resolveEtcdHostsSettings("etcd", { hosts: [m1, m2, { ...m1, address: "127.0.2.9" }] });
    expect(sameName).toThrow(ConfigError);
    expect(sameName).toThrow('invalid etcd.hosts[2].name: host "m1" is listed twice (also etcd.hosts[0])');
    const sameAddress = () => resolveEtcdHostsSettings("etcd", { hosts: [m1, m2, { ...m2, name: "m9" }] });
    expect(sameAddress).toThrow(
      'invalid etcd.hosts[2].address: host "m9" is listed twice: 127.0.2.3:2222 is also etcd.hosts[1] ("m2")',
    );
  });

  test("port clash, wrong key, unreachable host: one `up` names all three; fixed, the next converges", async () => {
    // m1: something already listens on its peer port
    const squatter = net.createServer().listen(2380, "127.0.2.2");
    await new Promise((r) => squatter.once("listening", r));
    // m2: a key its sshd does not accept
    const wrongKeyPath = path.join(estate.bed.dir, "wrong_key");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrongKeyPath]);
    const wrongKey = fs.readFileSync(wrongKeyPath, "utf8");
    const withWrongKey = estate.input(THREE);
    const faulty = {
      ...withWrongKey,
      hosts: withWrongKey.hosts.map((h) => (h.name === "m2" ? { ...h, privateKey: wrongKey } : h)),
    };
    // m3: its sshd stopped
    estate.bed.stopSshd("m3");

    let message: string;
    try {
      message = (await estate.upFailing("up: three faults", faulty)).message;
    } finally {
      await new Promise((r) => squatter.close(r));
    }
    for (const host of THREE) console.log(`${host}:\n  ${linesWith(message, `etcd-${host}-`).join("\n  ")}`);
    // the script's own message: host, step, reason
    expect(message).toContain(
      "pulumi-karmada: m1: check-ports: port 2380 on 127.0.2.2 is already in use (etcd peer port)",
    );
    // SSH failures: the command provider's error on the host's resource, with its address
    expect(message).toMatch(/etcd-m2-install[^\n]*unable to authenticate/);
    expect(message).toMatch(/etcd-m3-install[^\n]*127\.0\.2\.4:2222[^\n]*connection refused/);
    // the wrong key never reaches the output
    // (a line from the middle: the first body line is the same for every ed25519 OpenSSH key)
    const keyLines = wrongKey.trim().split("\n").slice(1, -1);
    expect(message.includes(keyLines[Math.floor(keyLines.length / 2)])).toBe(false);

    await estate.bed.startSshd("m3");
    await estate.up("up: faults fixed", estate.input(THREE));
    const client = await estate.client(THREE);
    await client.put("converged", "yes");
    expect(await client.get("converged")).toBe("yes");
    const members = await client.members();
    expect(members.map((m) => m.name).sort()).toEqual(THREE);
    expect(members.some((m) => m.isLearner)).toBe(false);
  });

  test("a secret SSH key that is no key fails the `up` naming the field; the running cluster is left as it was", async () => {
    // the program passes every key as a secret Output, as `config.requireSecret` gives it: it is checked
    // once known, inside the deployment, and every command of m2 is built from the checked key
    const garbage =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5LCBqdXN0IHRleHQ=\n-----END OPENSSH PRIVATE KEY-----\n";
    const m2Commands = () =>
      (
        (JSON.parse(estate.storedState()).checkpoint.latest?.resources ?? []) as {
          urn: string;
          id: string;
          modified: string;
        }[]
      )
        .filter((r) => r.urn.includes("etcd-m2-"))
        // when it was last changed (its secret inputs are encrypted afresh at every save)
        .map((r) => `${r.urn} ${r.id} modified ${r.modified}`);
    const before = m2Commands();
    expect(before.length).toBeGreaterThan(0);
    const input = estate.input(THREE);
    const faulty = {
      ...input,
      hosts: input.hosts.map((h) => (h.name === "m2" ? { ...h, privateKey: garbage } : h)),
    };
    const message = (await estate.upFailing("up: a garbled secret key", faulty)).message;
    console.log(linesWith(message, "privateKey").join("\n"));
    expect(message).toMatch(/invalid hosts\.hosts\[1\]\.privateKey: is truncated or garbled/);
    expect(message).not.toContain("bm90IGEga2V5LCBqdXN0IHRleHQ=");
    // nothing of m2 was changed with the bad key
    expect(m2Commands()).toEqual(before);
    expect(estate.storedState()).not.toContain("bm90IGEga2V5LCBqdXN0IHRleHQ=");
    // and the cluster serves on
    const client = await estate.client(THREE);
    expect(await client.get("converged")).toBe("yes");
  });
});
