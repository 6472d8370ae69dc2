/**
 * Interruption drill: an `up` killed mid-apply must leave nothing the next `up` cannot converge. etcd on
 * three loopback hosts (real sshd, real etcd, the real engine) holds 10,000 keys; an `up` that grows it to
 * five members is interrupted as the fourth member starts joining — SIGINT to the CLI, then SIGKILL — and
 * the remote command in flight is left to finish or die on its own, as on a real operator's laptop.
 * Then: `pulumi cancel` (whatever lock is left) and `up` again. It must converge to exactly five voting
 * members (no duplicate, no learner left behind), one etcd process per host (no orphan), 10,000 keys,
 * and a further `up` that changes nothing.
 */
import { EngineEvent } from "@pulumi/pulumi/automation";
import { execFileSync, spawnSync } from "child_process";
import * as path from "path";
import { describeChanges, e2eTier, recordSteps } from "../../devkit/engine";
import { EtcdTestClient } from "../../devkit/hosts/etcdClient";
import { EtcdStack, startEtcdStack } from "../../devkit/hosts/etcdStack";
import { waitFor } from "../../devkit/kube";

jest.setTimeout(30 * 60_000);

const tier = e2eTier("interruption: an up killed mid-apply converges (test/e2e/interruption.test.ts)", {
  binaries: ["pulumi", "pulumi-language-nodejs", "etcd"],
  plugins: ["command", "tls", "random"],
});

const FIRST = ["m1", "m2", "m3"];
const ALL = ["m1", "m2", "m3", "m4", "m5"];
const KEYS = 10_000;

/** Pids of the `pulumi up` CLI processes this test process started (the Automation API spawns them). */
function pulumiUpPids(): number[] {
  const ps = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" });
  return ps
    .split("\n")
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .filter((m) => Number(m[2]) === process.pid && /\bpulumi\b.*\bup\b/.test(m[3]))
    .map((m) => Number(m[1]));
}

/** etcd server processes of one host: an `etcd` binary installed under its root (not etcdctl/etcdutl). */
function etcdProcesses(root: string): number {
  const ps = execFileSync("ps", ["-eo", "args="], { encoding: "utf8" });
  return ps.split("\n").filter((args) => {
    const binary = args.split(" ")[0];
    return path.basename(binary) === "etcd" && args.includes(`${root}/`);
  }).length;
}

tier.describe("an `up` interrupted mid-apply (etcd on hosts, real engine)", () => {
  let estate: EtcdStack;
  let client: EtcdTestClient;
  let interrupted: { at: string; error: unknown };

  beforeAll(async () => {
    // the killed `up` must have saved what it did so far: the engine's per-step checkpoints, as users run it
    estate = await startEtcdStack("interruption", { prefix: "127.0.16.", count: 5 }, undefined, {
      checkpoints: true,
    });
    await estate.up("up: 3 members", estate.input(FIRST));
    client = await estate.client(FIRST);
    await client.putMany("k/", KEYS);

    // grow to five; interrupt as soon as the fourth member's step starts
    let joining = "";
    const running = estate
      .up("up: 3→5 members, interrupted", estate.input(ALL), (e: EngineEvent) => {
        const md = e.resourcePreEvent?.metadata;
        if (!joining && md?.urn.endsWith("-m4-member")) joining = md.urn.split("::").pop()!;
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    await waitFor("the fourth member's step to start", async () => joining !== "", 600_000, 100);
    const pids = pulumiUpPids();
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, "SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const pid of pulumiUpPids()) process.kill(pid, "SIGKILL");
    interrupted = { at: joining, error: await running };
    console.log(`interrupted at ${joining}: ${String(interrupted.error).split("\n")[0]}`);
  });

  afterAll(async () => {
    await estate?.stop();
  });

  test("the interrupted `up` did not complete", () => {
    expect(interrupted.error).toBeDefined();
  });

  test("`pulumi cancel` clears what the killed CLI left, and the next `up` converges", async () => {
    const cancel = spawnSync(estate.engine.pulumiBinary, ["cancel", "--yes", "--stack", "interruption"], {
      cwd: estate.stack.workspace.workDir,
      env: { ...process.env, ...estate.engine.env },
      encoding: "utf8",
    });
    console.log(`pulumi cancel: exit ${cancel.status}: ${(cancel.stdout + cancel.stderr).trim()}`);
    const result = await estate.up("up: after the interruption", estate.input(ALL));
    expect(result.summary.result).toBe("succeeded");
  });

  test("exactly five voting members, no duplicate and no learner left behind", async () => {
    const members = await client.members();
    expect(members.map((m) => m.name).sort()).toEqual(ALL);
    expect(members.filter((m) => m.isLearner)).toEqual([]);
  });

  test("one etcd process per host: nothing orphaned", () => {
    expect(estate.bed.hosts.map((h) => [h.name, etcdProcesses(h.root)])).toEqual(
      ALL.map((name) => [name, 1]),
    );
  });

  test("every key written before the interruption is there", async () => {
    expect(await client.count("k/")).toBe(KEYS);
  });

  test("a further `up` changes nothing", async () => {
    const steps = recordSteps();
    await estate.up("up: no change", estate.input(ALL), steps.onEvent);
    expect(describeChanges(steps.steps)).toEqual([]);
  });
});
