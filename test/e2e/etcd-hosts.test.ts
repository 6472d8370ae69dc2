/**
 * etcd on hosts deployed by `pulumi up` itself (real CLI, Node.js language host, command/tls/random
 * plugins) over real SSH with real etcd: a 3-member mTLS cluster, 10,000 keys through 3→5→3 with a
 * background writer and quorum checked after every remote command and every `up`; etcd killed (its
 * supervisor restarts it) and a member's whole service killed (the cluster keeps serving; the next
 * `up`, with `repairGeneration` bumped, brings it back); a join cut after the member started but before
 * its promotion (the next `up` promotes the learner).
 */
import { EngineEvent, UpResult } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as http from "http";
import * as path from "path";
import { e2eTier } from "../../devkit/engine/tier";
import { BackgroundWriter, EtcdTestClient } from "../../devkit/hosts/etcdClient";
import { EtcdStack, startEtcdStack } from "../../devkit/hosts/etcdStack";
import { killScriptProcesses } from "../../devkit/hosts/testbed";

jest.setTimeout(900_000);

const KEYS = 10_000;
const FIRST = ["m1", "m2", "m3"];
/** A configuration change that restarts every member (etcd reads snapshot-count only at start). */
const TUNED = { snapshotCount: 5000 };
const ALL = ["m1", "m2", "m3", "m4", "m5"];

const tier = e2eTier("etcd on hosts (test/e2e/etcd-hosts.test.ts)", {
  binaries: ["etcd", "pulumi", "pulumi-language-nodejs"],
  plugins: ["command", "tls", "random"],
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

/** Names of the remote commands an engine run created, updated or deleted (from its events). */
function commandSteps(events: EngineEvent[], op: string): string[] {
  return events
    .map((e) => e.resourcePreEvent?.metadata)
    .filter((md) => md?.type === "command:remote:Command" && md.op === op)
    .map((md) => md!.urn.split("::").pop()!)
    .sort();
}

/** Polls `check` every 200 ms until it resolves true (rejections count as false), for up to 30 s. */
async function waitUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * When a member was last down for a restart, from its etcd log (zap JSON lines): the last stop signal
 * and the first time it served clients after it, as epoch milliseconds.
 */
function restartWindow(logFile: string): { down: number; up: number } {
  const lines = fs
    .readFileSync(logFile, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { ts: string; msg: string });
  const at = (l: { ts: string }) => Date.parse(l.ts);
  const stops = lines.filter((l) => l.msg === "received signal; shutting down");
  if (stops.length === 0) throw new Error(`${logFile}: etcd was never stopped`);
  const down = at(stops[stops.length - 1]);
  const serving = lines.find((l) => l.msg.startsWith("serving client traffic") && at(l) > down);
  if (!serving) throw new Error(`${logFile}: etcd never served clients again after its restart`);
  return { down, up: at(serving) };
}

tier.describe("etcd on hosts, deployed by pulumi up", () => {
  let estate: EtcdStack;
  let client: EtcdTestClient;
  let firstUp: UpResult;

  beforeAll(async () => {
    // m6 only ever comes in as the replacement of a lost host
    estate = await startEtcdStack("etcd-hosts", { prefix: "127.0.1.", count: 6 });
    firstUp = await estate.up("up: 3 members", estate.input(FIRST));
    client = await estate.client(FIRST);
  });

  afterAll(async () => {
    if (estate) console.log(`engine runs (s): ${JSON.stringify(estate.timings)}`);
    await estate?.stop();
  });

  test("3 healthy members with TLS on client and peer traffic; keys stay secrets", async () => {
    const out = await estate.outputs();
    expect(out.clientUrls).toEqual(["127.0.1.2", "127.0.1.3", "127.0.1.4"].map((a) => `https://${a}:2379`));
    expect(out.clientKeyIsSecret).toBe(true);
    const members = await client.members();
    expect(members.map((m) => m.name).sort()).toEqual(FIRST);
    expect(members.every((m) => m.peerURLs.every((u) => u.startsWith("https://")))).toBe(true);
    for (const endpoint of client.endpoints) {
      await expect(client.request(endpoint, "/v3/maintenance/status", {})).resolves.toHaveProperty("version");
    }
    // neither the SSH key nor the client key is in the stored state or the CLI output in plaintext
    // (booleans: a failing assertion must not print them either)
    const state = estate.storedState();
    // a line from the middle of the key: the first body line is the same for every ed25519 OpenSSH key
    const body = (pem: string) => {
      const lines = pem.trim().split("\n").slice(1, -1);
      return lines[Math.floor(lines.length / 2)];
    };
    expect(state.includes("etcd-m1-member")).toBe(true);
    for (const secret of [body(estate.bed.clientKey), body(out.clientKeyPem)]) {
      expect(state.includes(secret)).toBe(false);
      expect(firstUp.stdout.includes(secret) || firstUp.stderr.includes(secret)).toBe(false);
    }
  });

  test("plain HTTP and clients without a certificate are refused", async () => {
    const reply = await plainHttp("http://127.0.1.2:2379/v3/kv/range");
    // Go's TLS listener answers plain HTTP with 400 "client sent an HTTP request to an HTTPS server".
    expect(reply).toMatch(/^(HTTP 400|error: )/);
    const { caCertPem } = await estate.outputs();
    const noCert = new EtcdTestClient(["https://127.0.1.2:2379"], { ca: caCertPem });
    await expect(noCert.request("https://127.0.1.2:2379", "/v3/kv/range", { key: "YQ==" })).rejects.toThrow(
      /certificate|alert|socket hang up|ECONNRESET/i,
    );
    noCert.close();
  });

  test("10,000 keys survive scaling 3→5→3 by `up`, quorum kept after every command", async () => {
    await client.putMany("k/", KEYS);
    expect(await client.count("k/")).toBe(KEYS);
    const writer = new BackgroundWriter(await estate.client(FIRST));
    // A linearizable count needs a quorum: checked as each remote command completes, and after each up.
    const checks: Promise<void>[] = [];
    const failures: string[] = [];
    const quorumCheck = (label: string) => (event: EngineEvent) => {
      const md = event.resOutputsEvent?.metadata;
      if (md?.type !== "command:remote:Command") return;
      const name = md.urn.split("::").pop();
      checks.push(
        client.count("k/").then(
          (n) => void (n !== KEYS && failures.push(`${label} after ${name}: ${n} keys`)),
          (e: Error) => void failures.push(`${label} after ${name}: ${e.message}`),
        ),
      );
    };
    const events: EngineEvent[] = [];
    try {
      await estate.up("up: 3→5 members", estate.input(ALL), (e) => {
        events.push(e);
        quorumCheck("3→5")(e);
      });
      expect(commandSteps(events, "create")).toEqual(
        expect.arrayContaining(["etcd-m4-member", "etcd-m5-member"]),
      );
      expect(await client.count("k/")).toBe(KEYS);
      const five = await client.members();
      expect(five.map((m) => m.name).sort()).toEqual(ALL);
      expect(five.some((m) => m.isLearner)).toBe(false);

      events.length = 0;
      await estate.up("up: 5→3 members", estate.input(FIRST), (e) => {
        events.push(e);
        quorumCheck("5→3")(e);
      });
      expect(commandSteps(events, "delete")).toEqual(
        expect.arrayContaining(["etcd-m4-member", "etcd-m5-member"]),
      );
      expect(await client.count("k/")).toBe(KEYS);
      expect((await client.members()).map((m) => m.name).sort()).toEqual(FIRST);
    } finally {
      await writer.stop();
      await Promise.all(checks);
    }
    expect(failures).toEqual([]);
    expect(checks.length).toBeGreaterThan(5);
    expect(writer.failed).toEqual([]);
    expect(writer.ok).toBeGreaterThan(20);
    expect(await client.count("bg/")).toBe(writer.ok);
    // Removed members keep their data dir (deleteData is false) and no longer run.
    for (const name of ["m4", "m5"]) {
      const root = estate.bed.hosts.find((h) => h.name === name)!.root;
      expect(fs.existsSync(path.join(root, "var/lib/etcd/member/wal"))).toBe(true);
      expect(fs.existsSync(path.join(root, "run/pulumi-karmada/pk-etcd/supervisor.pid"))).toBe(false);
    }
  });

  test("a configuration change restarts the members one at a time, each healthy before the next goes down", async () => {
    const root = (name: string) => estate.bed.hosts.find((h) => h.name === name)!.root;
    const childPid = (name: string) =>
      fs.readFileSync(path.join(root(name), "run/pulumi-karmada/pk-etcd/child.pid"), "utf8").trim();
    const before = FIRST.map(childPid);
    const events: EngineEvent[] = [];
    await estate.up("up: snapshotCount changed", estate.input(FIRST, TUNED), (e) => events.push(e));
    // the member commands ran at the same time; their scripts took turns
    expect(commandSteps(events, "update")).toEqual(
      expect.arrayContaining(["etcd-m1-member", "etcd-m2-member", "etcd-m3-member"]),
    );
    expect(FIRST.map(childPid).filter((pid, i) => pid === before[i])).toEqual([]);
    // each member's downtime, from its etcd log: stop signal → serving clients again
    const downtime = FIRST.map((name) =>
      restartWindow(path.join(root(name), "var/log/pulumi-karmada/etcd.log")),
    );
    const sorted = [...downtime].sort((a, b) => a.down - b.down);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i].down).toBeGreaterThan(sorted[i - 1].up);
    expect(await client.count("k/")).toBe(KEYS);
  });

  test("a killed member: the cluster keeps serving; the next `up` (repairGeneration bumped) brings it back", async () => {
    const pidOf = (name: string, file: string) => {
      const root = estate.bed.hosts.find((h) => h.name === name)!.root;
      return Number(fs.readFileSync(path.join(root, "run/pulumi-karmada/pk-etcd", file), "utf8"));
    };
    // etcd alone killed: its supervisor starts it again by itself
    const m2 = await estate.client(["m2"]);
    const before = pidOf("m2", "child.pid");
    process.kill(before, "SIGKILL");
    await waitUntil("m2 serves again", () => m2.get("k/00000").then((v) => v === "value-0"));
    expect(pidOf("m2", "child.pid")).not.toBe(before);

    // the whole service killed (etcd and its supervisor): nothing brings it back but an `up`
    const m3 = estate.bed.hosts.find((h) => h.name === "m3")!;
    killScriptProcesses(m3.root);
    const survivors = await estate.client(["m1", "m2"]);
    await survivors.put("after-kill", "yes");
    expect(await survivors.get("after-kill")).toBe("yes");
    expect(await survivors.count("k/")).toBe(KEYS);
    // Pulumi re-runs only commands whose inputs changed: the repair counter re-runs the start steps
    const events: EngineEvent[] = [];
    await estate.up(
      "up: repair after m3 was killed",
      estate.input(FIRST, { ...TUNED, repairGeneration: 1 }),
      (e) => events.push(e),
    );
    expect(commandSteps(events, "update")).toEqual(["etcd-m1-member", "etcd-m2-member", "etcd-m3-member"]);
    const m3Client = await estate.client(["m3"]);
    expect(await m3Client.get("after-kill")).toBe("yes");
    expect(await m3Client.count("k/")).toBe(KEYS);
    expect((await client.members()).map((m) => m.name).sort()).toEqual(FIRST);
  });
  test("a join cut between the member's start and its promotion: the next `up` promotes the learner it left", async () => {
    // m3 leaves the cluster and loses its data, as a host that rejoins from scratch
    const m3 = estate.bed.hosts.find((h) => h.name === "m3")!;
    const survivors = await estate.client(["m1", "m2"]);
    await survivors.put("before-cut", "yes");
    killScriptProcesses(m3.root);
    const gone = (await survivors.members()).find((m) => m.name === "m3")!;
    await survivors.call("/v3/cluster/member/remove", { ID: gone.ID });
    fs.rmSync(path.join(m3.root, "var/lib/etcd"), { recursive: true, force: true });
    // its start command as the last `up` ran it, over SSH, ended right before the promote step: etcd
    // joins as a learner and runs — what an `up` cancelled or killed at that moment leaves behind
    const state = await estate.stack.exportStack();
    const member = state.deployment.resources.find((r: { urn: string }) =>
      r.urn.endsWith("::etcd-m3-member"),
    );
    const promoteStep = "pk_step '\\''promote'\\''";
    const create: string = member.inputs.create;
    expect(create).toContain(promoteStep);
    const cut = await estate.ssh("m3", create.replace(promoteStep, `exit 0\n${promoteStep}`));
    expect(cut.stdout).toContain("added as a learner");
    await waitUntil("m3 runs as a learner", async () =>
      (await survivors.members()).some((m) => m.name === "m3" && m.isLearner === true),
    );
    // a learner never reports healthy: the next `up` (its start step re-run) must promote it
    await estate.up(
      "up: after a join cut before its promotion",
      estate.input(FIRST, { ...TUNED, repairGeneration: 2 }),
    );
    const members = await client.members();
    expect(members.map((m) => [m.name, m.isLearner ?? false]).sort()).toEqual(FIRST.map((n) => [n, false]));
    // a voter again, with the data it caught up on as a learner
    const m3Client = await estate.client(["m3"]);
    expect(await m3Client.get("before-cut")).toBe("yes");
  });

  test("a host that never comes back: listed instead of it (`replaces`), a new host takes its place; nothing runs on the lost one, quorum and 10,000 keys kept", async () => {
    // m3 is gone for good: its processes die, its SSH server never answers again
    const m3 = estate.bed.hosts.find((h) => h.name === "m3")!;
    killScriptProcesses(m3.root);
    estate.bed.stopSshd("m3");
    const survivors = await estate.client(["m1", "m2"]);
    expect(await survivors.count("k/")).toBe(KEYS);

    const input = estate.input(["m1", "m2", "m6"], { ...TUNED, repairGeneration: 1 });
    const replacement = {
      ...input,
      hosts: input.hosts.map((h) => (h.name === "m6" ? { ...h, replaces: "m3" } : h)),
    };
    // quorum checked as every command completes: a linearizable count needs a majority
    const checks: Promise<void>[] = [];
    const failures: string[] = [];
    const events: EngineEvent[] = [];
    await estate.up("up: m6 replaces the lost m3", replacement, (e) => {
      events.push(e);
      const md = e.resOutputsEvent?.metadata;
      if (md?.type !== "command:remote:Command") return;
      const name = md.urn.split("::").pop();
      checks.push(
        survivors.count("k/").then(
          (n) => void (n !== KEYS && failures.push(`after ${name}: ${n} keys`)),
          (err: Error) => void failures.push(`after ${name}: ${err.message}`),
        ),
      );
    });
    await Promise.all(checks);
    expect(failures).toEqual([]);
    // m3's commands became m6's (aliases): updated in place, none deleted, nothing ran on m3
    expect(commandSteps(events, "delete")).toEqual([]);
    expect(commandSteps(events, "update")).toEqual(
      expect.arrayContaining(["etcd-m6-install", "etcd-m6-member", "etcd-m6-pki"]),
    );
    const urns = events.map((e) => e.resourcePreEvent?.metadata?.urn ?? "").filter((u) => /etcd-m3-/.test(u));
    expect(urns).toEqual([]);
    const resources: { urn: string; outputs?: { stdout?: string } }[] = JSON.parse(estate.storedState())
      .checkpoint.latest.resources;
    // the new member removed the lost voter before it joined (etcd admits none while one is unreachable)
    const joined = resources.find((r) => r.urn.endsWith("::etcd-m6-member"))!;
    expect(joined.outputs?.stdout).toContain("removed member m3: not in the host list and not answering");
    const inState = resources.map((r) => r.urn);
    expect(inState.filter((urn: string) => /::etcd-m6-(install|pki|member)$/.test(urn)).length).toBe(3);
    expect(inState.filter((urn: string) => /::etcd-m3-/.test(urn))).toEqual([]);

    const members = await survivors.members();
    expect(members.map((m) => m.name).sort()).toEqual(["m1", "m2", "m6"]);
    expect(members.some((m) => m.isLearner)).toBe(false);
    const m6 = await estate.client(["m6"]);
    expect(await m6.count("k/")).toBe(KEYS);
    expect(await m6.get("after-kill")).toBe("yes");
    // settled: the same input again changes nothing
    const again: EngineEvent[] = [];
    await estate.up("up: after the replacement, unchanged", replacement, (e) => again.push(e));
    expect(["create", "update", "delete", "replace"].flatMap((op) => commandSteps(again, op))).toEqual([]);
  });
});
