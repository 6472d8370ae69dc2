/**
 * The README's first command the way a new machine runs it (issue 51), on a test-bed cache holding only
 * what `npm start`'s own set-up step builds (hard-linked from the full cache, so nothing is rebuilt, and an
 * environment that knows nothing else): `npm start` interrupted (Ctrl-C) with the lab half up, and `npm
 * run stop` removes the half lab at once; interrupted again, `npm start` makes a new lab and Karmada is up;
 * the sample applied as it prints reaches every member; then a "reboot" — every process of the lab killed
 * at once, its namespaces and mounts gone, its files kept — and `npm start` boots the same machines and
 * clusters from their disks: the sample's objects are still there (same uids) and the `up` changes
 * nothing; `npm run stop` removes everything. (`npm run start:containerized`: readme-containerized.test.ts.)
 *
 * The local estate's lab is one per machine, so these checks run in binary.test.ts's file, before its own
 * estate (a suite of their own would wait on a parallel worker for that estate's lock); they hold the
 * lock too (devkit/engine/localEstate.ts), so an estate of a bench never overlaps them.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { acquireLock } from "../../devkit/lock";
import { localLabLock, LOCAL_ESTATE_NEEDS } from "../../devkit/engine/localEstate";
import { e2eTier } from "../../devkit/engine/tier";
import { processesIn } from "../../devkit/lab/cgroups";
import { labLeftovers, stopLab } from "../../devkit/lab/lab";
import { LabPlan, planLab } from "../../devkit/lab/plan";
import { clusterFiles } from "../../devkit/lab/controlPlane";
import { ApiCredentials, credentialsFromKubeconfig, waitFor } from "../../devkit/kubeClient";
import { callApi } from "../../lib/kube/rest";
import { bedLabSpec, readLayout } from "../../devkit/sandbox/bed";
import { SAMPLE } from "../../devkit/sandbox/estate";
import { lastResourcesSummary, NewMachine, newMachine, seedCache, startCommand } from "../support/newMachine";

/** Longest a command may take before the suite calls it hung. */
const START_TIMEOUT_MS = 15 * 60_000;
const STOP_TIMEOUT_MS = 8 * 60_000;

/** Registers the checks (called by binary.test.ts, first). */
export function describeReadmeCommands(): void {
  const tier = e2eTier("the README's first command on a new machine (test/e2e/readmeCommands.ts)", {
    ...LOCAL_ESTATE_NEEDS,
    binaries: [...LOCAL_ESTATE_NEEDS.binaries!, "kubectl"],
  });
  tier.describe("the README's first command on a new machine", readmeChecks);
}

function readmeChecks(): void {
  let machine: NewMachine;
  let release: () => void;
  /** The local estate's lab as `npm start` makes it under the new machine's cache. */
  let plan: LabPlan;
  const sandbox = () => path.join(machine.cache, "local-estate");
  const karmadaCredentials = (): ApiCredentials =>
    credentialsFromKubeconfig(fs.readFileSync(path.join(sandbox(), "karmada.kubeconfig"), "utf8"));
  const memberCredentials = (name: string): ApiCredentials =>
    credentialsFromKubeconfig(
      fs.readFileSync(clusterFiles(plan.clusters.find((c) => c.name === name)!).kubeconfig("admin"), "utf8"),
    );
  const members = () => readLayout().members.map((m) => m.clusterName);

  beforeAll(async () => {
    release = await acquireLock(localLabLock());
    machine = newMachine();
    plan = planLab(bedLabSpec(sandbox(), readLayout()));
    console.log(`the new machine's cache holds: ${seedCache(machine.cache, "estate").join(", ")}`);
  });

  afterAll(async () => {
    console.log(`timings (s): ${JSON.stringify(machine?.timings)}; commands' output: ${machine?.log}`);
    // whatever a failed step left: nothing of it may stay on the machine
    if (plan) await stopLab(plan).catch((e) => console.log(`cleanup: ${(e as Error).message}`));
    machine?.remove();
    release?.();
  });

  /** Starts `npm start` and interrupts it (Ctrl-C) once the lab is half up: its first machine booting. */
  const interruptedStart = async () => {
    const interrupted = startCommand(["start"], machine.env, machine.log, START_TIMEOUT_MS);
    const machinePid = path.join(plan.machines[0].dir, "run", "machine.pid");
    await waitFor("the lab's first machine booting", async () => fs.existsSync(machinePid), 300_000, 100);
    expect(fs.existsSync(path.join(plan.dir, "lab.complete"))).toBe(false);
    interrupted.signal("SIGINT");
    const ended = await interrupted.done;
    expect(ended.code).not.toBe(0);
    expect(processesIn(plan.cgroup).length).toBeGreaterThan(0); // half a lab stays behind
  };

  /** The sample's objects: the PropagationPolicy and Deployment in Karmada, the Deployment in each member, by uid. */
  const sampleUids = async () => {
    const uidAt = async (creds: ApiCredentials, apiPath: string) => {
      const res = await callApi(creds, "GET", apiPath);
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

  test("npm start interrupted (Ctrl-C) with the lab half up: npm run stop removes the half lab at once", async () => {
    await interruptedStart();
    const half = await machine.npm("npm run stop (a half lab)", ["run", "stop"], STOP_TIMEOUT_MS);
    expect(half).toMatch(/no estate to destroy \(the lab there never finished starting/);
    expect(half).toMatch(/local estate removed/);
    expect(labLeftovers(plan)).toEqual([]);
  });

  test("npm start after another was interrupted with the lab half up, with only what its set-up step builds: a new lab, Karmada is up; the sample applied as it prints reaches every member", async () => {
    await interruptedStart();
    const output = await machine.npm("npm start (new machine)", ["start"], START_TIMEOUT_MS);
    expect(output).toMatch(/lab local: a new one \(the lab there never finished starting/);
    expect(output).toMatch(/Karmada is up: 3 member clusters Ready\./);
    // nothing was built: the set-up step found everything in the seeded cache
    expect(output).not.toMatch(/\[testbed\] building /);

    // the sample, as the printed commands apply it (karmadactl from the new machine's cache)
    const karmadactl = output.match(/^\s*(\S+karmadactl) --kubeconfig \S+ apply -f /m)?.[1];
    expect(karmadactl?.startsWith(machine.cache)).toBe(true);
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
          const res = await callApi(
            memberCredentials(m),
            "GET",
            "/apis/apps/v1/namespaces/default/deployments/nginx",
          );
          // Karmada's execution controller marks what it propagated with the policy's name
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

    const output = await machine.npm("npm start (after the reboot)", ["start"], START_TIMEOUT_MS);
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
    const output = await machine.npm("npm run stop", ["run", "stop"], STOP_TIMEOUT_MS);
    expect(output).toMatch(/local estate removed/);
    expect(labLeftovers(plan)).toEqual([]);
    expect(fs.existsSync(sandbox())).toBe(false);
  });
}
