/**
 * The README's first command the way a new machine runs it (issue 51): `npm start` with a test-bed cache
 * holding only what its own set-up step builds (hard-linked from the full cache, so nothing is rebuilt,
 * and an environment that knows nothing else), the sample applied and seen in every member; then a
 * "reboot" — every process of the lab killed at once, its namespaces and mounts gone, its files kept — and
 * `npm start` boots the same machines and clusters from their disks: the sample's objects are still there
 * (same uids) and the `up` changes nothing; `npm run stop` removes everything. Then `npm start`
 * interrupted (Ctrl-C) with the lab half up: `npm start` again and `npm run stop` both succeed. Last, `npm
 * run start:containerized` with its own set-up step's cache brings the sample's pods up in both members,
 * and `npm run stop:containerized` removes it.
 *
 * The local estate's lab is one per machine, so these checks run in binary.test.ts's file, before its own
 * estate (a suite of their own would wait on a parallel worker for that estate's lock); they hold the
 * lock too (devkit/engine/localEstate.ts), so an estate of a bench never overlaps them.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireLock } from "../../devkit/lock";
import { localLabLock, LOCAL_ESTATE_NEEDS } from "../../devkit/engine/localEstate";
import { e2eTier } from "../../devkit/engine/tier";
import { processesIn } from "../../devkit/lab/cgroups";
import { labLeftovers, stopLab } from "../../devkit/lab/lab";
import { LabPlan, planLab } from "../../devkit/lab/plan";
import { clusterFiles } from "../../devkit/lab/controlPlane";
import { sandboxLabSpec } from "../../devkit/lab/labs";
import { apiRequest, ApiCredentials, credentialsFromKubeconfig, waitFor } from "../../devkit/kubeClient";
import { bedLabSpec, readLayout } from "../../scripts/sandbox/bed";
import { SAMPLE } from "../../scripts/sandbox/estate";
import {
  lastResourcesSummary,
  newMachineEnv,
  runCommand,
  seedCache,
  startCommand,
} from "../support/newMachine";

/** Longest a command may take before the suite calls it hung. */
const START_TIMEOUT_MS = 15 * 60_000;
const STOP_TIMEOUT_MS = 8 * 60_000;

/** Registers the checks (called by binary.test.ts, first). */
export function describeReadmeCommands(): void {
  const tier = e2eTier("the README's commands on a new machine (test/e2e/readmeCommands.ts)", {
    ...LOCAL_ESTATE_NEEDS,
    binaries: [
      ...LOCAL_ESTATE_NEEDS.binaries!,
      "kubectl",
      "kubelet",
      "containerd",
      "skopeo",
      "docker-registry",
    ],
  });
  tier.describe("the README's commands on a new machine", readmeChecks);
}

const timings: Record<string, number> = {};

function readmeChecks(): void {
  let cache: string;
  let env: Record<string, string>;
  let log: string;
  let release: () => void;
  /** The local estate's lab as `npm start` makes it under the new machine's cache. */
  let plan: LabPlan;
  const sandbox = () => path.join(cache, "local-estate");
  const karmadaCredentials = (): ApiCredentials =>
    credentialsFromKubeconfig(fs.readFileSync(path.join(sandbox(), "karmada.kubeconfig"), "utf8"));
  const memberCredentials = (name: string): ApiCredentials =>
    credentialsFromKubeconfig(
      fs.readFileSync(clusterFiles(plan.clusters.find((c) => c.name === name)!).kubeconfig("admin"), "utf8"),
    );
  const members = () => readLayout().members.map((m) => m.clusterName);
  /** The containerized sandbox's lab as `npm run start:containerized` makes it under the new machine's cache. */
  const containerizedLab = () => ({ ...sandboxLabSpec(), dir: path.join(cache, "labs", "sandbox") });

  /** Runs `npm <args>` on the new machine, expecting success; its output. */
  const npm = async (label: string, args: readonly string[], timeoutMs = START_TIMEOUT_MS) => {
    const run = await runCommand(args, env, log, timeoutMs);
    timings[label] = run.seconds;
    if (run.code !== 0) {
      throw new Error(
        `npm ${args.join(" ")} ended with ${run.code ?? run.signal} after ${run.seconds} s; its last lines:\n` +
          run.output.split("\n").slice(-40).join("\n"),
      );
    }
    return run.output;
  };

  beforeAll(async () => {
    release = await acquireLock(localLabLock());
    cache = fs.mkdtempSync(path.join(os.tmpdir(), "pk-new-machine-"));
    log = path.join(cache, "commands.log");
    env = newMachineEnv(cache);
    plan = planLab(bedLabSpec(sandbox(), readLayout()));
  });

  afterAll(async () => {
    console.log(`timings (s): ${JSON.stringify(timings)}; commands' output: ${log}`);
    // whatever a failed step left: nothing of it may stay on the machine
    for (const spec of [bedLabSpec(sandbox(), readLayout()), containerizedLab()])
      await stopLab(planLab(spec)).catch((e) => console.log(`cleanup: ${(e as Error).message}`));
    if (cache && !process.env.PK_KEEP_TESTBED) fs.rmSync(cache, { recursive: true, force: true });
    release?.();
  });

  /** The sample's objects: the PropagationPolicy and Deployment in Karmada, the Deployment in each member, by uid. */
  const sampleUids = async () => {
    const uidAt = async (creds: ApiCredentials, apiPath: string) => {
      const res = await apiRequest(creds, "GET", apiPath);
      return res.status === 200 ? (res.body.metadata.uid as string) : `HTTP ${res.status}`;
    };
    const deployment = "/apis/apps/v1/namespaces/default/deployments/nginx";
    return {
      policy: await uidAt(
        karmadaCredentials(),
        "/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies/nginx",
      ),
      deployment: await uidAt(karmadaCredentials(), deployment),
      ...Object.fromEntries(
        await Promise.all(members().map(async (m) => [m, await uidAt(memberCredentials(m), deployment)])),
      ),
    };
  };
  let before: Record<string, string>;

  test("npm start, with only what its set-up step builds: Karmada is up; the sample applied as it prints reaches every member", async () => {
    const seeded = seedCache(cache, "estate");
    console.log(`the new machine's cache holds: ${seeded.join(", ")}`);
    const output = await npm("npm start (new machine)", ["start"]);
    expect(output).toMatch(/lab local: a new one \(no lab was started there before\)/);
    expect(output).toMatch(/Karmada is up: 3 member clusters Ready\./);
    // nothing was built: the set-up step found everything in the seeded cache
    expect(output).not.toMatch(/\[testbed\] building /);

    // the sample, as the printed commands apply it (karmadactl from the new machine's cache)
    const karmadactl = output.match(/^\s*(\S+karmadactl) --kubeconfig \S+ apply -f /m)?.[1];
    expect(karmadactl?.startsWith(cache)).toBe(true);
    execFileSync(karmadactl!, [
      "--kubeconfig",
      path.join(sandbox(), "karmada.kubeconfig"),
      "apply",
      "-f",
      SAMPLE,
    ]);
    await waitFor(
      "the sample's Deployment, marked with its PropagationPolicy, in every member",
      async () => {
        for (const m of members()) {
          const res = await apiRequest(
            memberCredentials(m),
            "GET",
            "/apis/apps/v1/namespaces/default/deployments/nginx",
          );
          if (
            res.status !== 200 ||
            res.body.metadata.annotations?.["propagationpolicy.karmada.io/name"] !== "nginx"
          )
            return false;
        }
        return true;
      },
      180_000,
      2000,
    );
    before = await sampleUids();
    expect(Object.values(before).every((uid) => /^[0-9a-f-]{36}$/.test(uid))).toBe(true);
  });

  test("after a reboot (every lab process killed, no clean shutdown), npm start boots the same machines and clusters from their disks: the sample is still there, the up changes nothing", async () => {
    // a power cut: every process at once, then what a reboot clears (namespaces, mounts, /run)
    for (let round = 0; round < 50 && processesIn(plan.cgroup).length > 0; round++) {
      for (const pid of processesIn(plan.cgroup)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(processesIn(plan.cgroup)).toEqual([]);
    await stopLab(plan, { keepDir: true });

    const output = await npm("npm start (after the reboot)", ["start"]);
    expect(output).toMatch(/lab local booting again from its disks \(not running: /);
    expect(output).not.toMatch(/state of the estate on the old lab is discarded/);
    expect(output).toMatch(/Karmada is up: 3 member clusters Ready\./);
    // the same machines (pinned host keys unchanged: no ~connection), the same clusters: nothing to do
    const summary = lastResourcesSummary(output);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatch(/^\d+ unchanged$/);
    expect(await sampleUids()).toEqual(before);
  });

  test("npm run stop removes everything, in bounded time", async () => {
    const output = await npm("npm run stop", ["run", "stop"], STOP_TIMEOUT_MS);
    expect(output).toMatch(/local estate removed/);
    expect(labLeftovers(plan)).toEqual([]);
    expect(fs.existsSync(sandbox())).toBe(false);
  });

  test("npm start interrupted (Ctrl-C) with the lab half up: npm start again succeeds, then npm run stop", async () => {
    const interrupted = startCommand(["start"], env, log, START_TIMEOUT_MS);
    // half up: the lab's machines booting, its clusters not all started yet
    const machinePid = path.join(plan.machines[0].dir, "run", "machine.pid");
    await waitFor("the lab's first machine booting", async () => fs.existsSync(machinePid), 300_000, 100);
    expect(fs.existsSync(path.join(plan.dir, "lab.complete"))).toBe(false);
    interrupted.signal("SIGINT");
    const ended = await interrupted.done;
    expect(ended.code).not.toBe(0);
    expect(processesIn(plan.cgroup).length).toBeGreaterThan(0); // half a lab stays behind

    const output = await npm("npm start (after the interrupted one)", ["start"]);
    expect(output).toMatch(/lab local: a new one \(the lab there never finished starting/);
    expect(output).toMatch(/Karmada is up: 3 member clusters Ready\./);
    const stopped = await npm("npm run stop (after the interrupted start)", ["run", "stop"], STOP_TIMEOUT_MS);
    expect(stopped).toMatch(/local estate removed/);
    expect(labLeftovers(plan)).toEqual([]);
  });

  test("npm run start:containerized, with only what its set-up step builds: the sample's pods run in both members; npm run stop:containerized removes everything", async () => {
    const seeded = seedCache(cache, "containerized");
    console.log(`the new machine's cache now holds also: ${seeded.join(", ")}`);
    const output = await npm("npm run start:containerized (new machine)", ["run", "start:containerized"]);
    expect(output).not.toMatch(/\[testbed\] building /);
    expect(output).toMatch(/Karmada is up on real nodes/);
    for (const m of ["member1", "member2"]) {
      const lines = output.split("\n").filter((l) => l.startsWith(`  ${m}: web-`));
      expect(lines).toHaveLength(2);
      for (const l of lines) expect(l).toMatch(/ Running true$/);
    }
    const stopped = await npm("npm run stop:containerized", ["run", "stop:containerized"], STOP_TIMEOUT_MS);
    expect(stopped).toMatch(/containerized sandbox removed/);
    expect(labLeftovers(planLab(containerizedLab()))).toEqual([]);
  });
}
