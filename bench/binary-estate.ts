/**
 * Bench: the local estate of `npm start` (etcd on 3 systemd machines, the control plane as services on 2
 * behind HAProxy, 2 push + 1 pull members) with the real engine. Each round, on machines reinstalled from
 * the image: `up` from nothing; the floor by hand (devkit/sandbox/floor.ts: every service unit stopped
 * in destroy order, started in install order until healthy); the pull member's agent started, as
 * `npm start` does, and every Cluster Ready (not measured); a no-change `up` (after one unmeasured, which
 * warms the fresh API servers), a preview, a one-component rolling upgrade (karmada-scheduler to a staged
 * release), the scheduler rolled host by host by hand, then `destroy` (the agent stopped after it).
 * Beside each figure its floor: the engine's own cost for a program with no resource work (CLI,
 * language host, one provider of each plugin the estate uses) plus the processes' own start, restart
 * or stop time; for the preview, the no-change `up` and the upgrade, the same resources without our
 * program — a bare program registering the estate's state again (support/stateReplayProject.ts),
 * previewed and applied with no changes against a copy of that state. Prints where the engine's time
 * went per resource kind and where the machine's CPU went.
 *
 * Run: BENCH_ROUNDS=3 npx ts-node --transpile-only -P tsconfig.json bench/binary-estate.ts
 * (BENCH_SKIP_CHECKPOINTS=1: the same without the engine's per-step state checkpoints, separate rows)
 * Needs the test bed (scripts/testbed/build.sh, the machine image included) and the local estate's lab
 * addresses free (Pulumi.local.yaml: no `npm start` estate running).
 */
import { EngineEvent, LocalWorkspace, OpMap, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as path from "path";
import { reinstallMachine } from "../devkit/lab/machine";
import { ByHand, runningServices, rollByHand, startAllByHand, stopAllByHand } from "../devkit/sandbox/floor";
import { stopPullAgent } from "../devkit/sandbox/agent";
import { startAgentsAndWait, writeAdminKubeconfig } from "../devkit/sandbox/estate";
import { LOCAL_RUN_OPTIONS, LocalStack, SettingsEdit } from "../devkit/sandbox/stack";
import { LocalEstate, stageSchedulerVersion, startLocalEstate } from "../devkit/engine/localEstate";
import { CpuMeter, describeCpuUse } from "./support/cpuUse";
import { deleteSchedules, StateResource } from "./support/deleteSchedule";
import { sameResourcesStack } from "./support/stateReplayProject";
import { describeKindTimings, EngineStepClock, StepTiming, timingsByKind } from "./support/engineTimings";
import { BenchTarget, figureOf, median, reportFigure, timed } from "./support/figures";

const BENCH = "binary-estate";

/**
 * BENCH_SKIP_CHECKPOINTS=1: every engine operation of the bench (ours, the bare replay, the empty
 * program) runs with PULUMI_SKIP_CHECKPOINTS=true, the state written once per operation instead of
 * after every step — what the figures would be with an engine that journals its steps to a file backend
 * (it rewrites the whole state instead). Its figures are separate rows (`….without-checkpoints`).
 */
const SKIP_CHECKPOINTS = process.env.BENCH_SKIP_CHECKPOINTS === "1";
const SKIP_CHECKPOINTS_VAR = "PULUMI_SKIP_CHECKPOINTS";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const UPGRADE_VERSION = "v1.18.3";
const UPGRADED = "karmada-scheduler";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One round's wall times (ms). */
interface Round {
  up: number;
  noChangeUp: number;
  preview: number;
  upgrade: number;
  destroy: number;
  /** The destroy's own steps scheduled two ways (support/deleteSchedule.ts), ms. */
  destroySchedule: { levelByLevel: number; byDependencies: number };
  engine: EngineFloor;
  /** The bare program registering the estate's resources again from its state (stateReplayProject.ts). */
  bare: { preview: number; noChangeUp: number };
  processes: { start: number; roll: number; stop: number };
}

/** The engine's cost with no resource work (ms): the floor program's up, no-change up, preview, destroy. */
interface EngineFloor {
  up: number;
  noChangeUp: number;
  preview: number;
  destroy: number;
}

/** Operations of a summary that change something (reads only look). */
function changes(summary: OpMap | undefined): string[] {
  return Object.entries(summary ?? {})
    .filter(([op, n]) => op !== "same" && op !== "read" && (n ?? 0) > 0)
    .map(([op, n]) => `${op} ${n}`);
}

/**
 * When BENCH_TIMELINE_DIR is set: each step's start and end (s) per operation in a file there, to find
 * the critical path.
 */
function timeline(): { onEvent: (event: EngineEvent) => void; write: (what: string) => void } {
  const t0 = performance.now();
  const started = new Map<string, number>();
  const rows: string[] = [];
  const at = () => ((performance.now() - t0) / 1000).toFixed(1).padStart(6);
  return {
    onEvent: (event) => {
      const pre = event.resourcePreEvent?.metadata;
      if (pre) started.set(pre.urn, performance.now());
      const end = event.resOutputsEvent?.metadata ?? event.resOpFailedEvent?.metadata;
      if (end && end.op !== "same") {
        const from = (((started.get(end.urn) ?? t0) - t0) / 1000).toFixed(1).padStart(6);
        rows.push(`${from} → ${at()}  ${end.op} ${end.urn.split("::").pop()}`);
      }
      if (event.summaryEvent) rows.push(`${at()} summary`);
    },
    write: (what) => {
      const dir = process.env.BENCH_TIMELINE_DIR;
      if (dir) fs.writeFileSync(path.join(dir, `${what.replace(/\W+/g, "-")}.txt`), `${rows.join("\n")}\n`);
    },
  };
}

/** Runs one engine operation with the step clock; prints where its time went. */
async function measured<T>(
  what: string,
  run: (onEvent: (event: EngineEvent) => void) => Promise<T>,
): Promise<{ ms: number; result: T; steps: readonly StepTiming[] }> {
  const clock = new EngineStepClock();
  const steps = timeline();
  const cpu = new CpuMeter();
  cpu.start();
  const out = await timed(() =>
    run((event) => {
      clock.onEvent(event);
      steps.onEvent(event);
    }),
  ).finally(() => steps.write(what));
  console.log(`${what}: ${(out.ms / 1000).toFixed(1)} s; per resource kind (work, steps overlap):`);
  console.log(describeKindTimings(timingsByKind(clock.steps()), 8) || "  (no steps but same/read)");
  console.log(describeCpuUse(cpu.stop(), 8));
  return { ...out, steps: clock.steps() };
}

const shortName = (urn: string) => urn.split("::").pop() ?? urn;

/**
 * The destroy's steps as the engine scheduled them (level by level) and as their dependencies alone
 * would allow; prints the slowest levels and the critical path. `state` is the stack's state before.
 */
function describeDestroySchedule(
  state: readonly StateResource[],
  steps: readonly StepTiming[],
): Round["destroySchedule"] {
  const s = deleteSchedules(state, new Map(steps.map((step) => [step.urn, step.ms])));
  console.log(
    `destroy scheduled: ${s.levels.length} levels, level by level ${seconds(s.levelByLevelMs)}` +
      ` (the engine's way), by dependencies alone ${seconds(s.byDependenciesMs)}; the slowest levels:`,
  );
  for (const level of [...s.levels].sort((a, b) => b.ms - a.ms).slice(0, 8))
    console.log(`  ${seconds(level.ms)} ${shortName(level.slowest ?? "")} (${level.urns.length} steps)`);
  const path = s.criticalPath.filter((step) => step.ms >= 500);
  console.log(
    `  critical path: ${path.map((step) => `${shortName(step.urn)} ${seconds(step.ms)}`).join(" → ")}`,
  );
  return { levelByLevel: s.levelByLevelMs, byDependencies: s.byDependenciesMs };
}

/**
 * The floor program: a project in the estate's directory with one provider of each plugin the estate
 * uses (tls, random, command, kubernetes on a member cluster) and nothing else, run by the same CLI,
 * language host and backend as the estate's stack.
 */
async function floorStack(estate: LocalEstate, local: LocalStack): Promise<Stack> {
  const dir = path.join(estate.dir, "floor-project");
  fs.mkdirSync(dir, { recursive: true });
  const modules = path.join(dir, "node_modules");
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(local.workDir, "node_modules"), modules);
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    "name: engine-floor\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n",
  );
  fs.writeFileSync(
    path.join(dir, "index.js"),
    [
      `const pulumi = require("@pulumi/pulumi");`,
      `new (require("@pulumi/tls").Provider)("tls");`,
      `new (require("@pulumi/random").Provider)("random");`,
      `new (require("@pulumi/command").Provider)("command");`,
      `new (require("@pulumi/kubernetes").Provider)("member", { kubeconfig: new pulumi.Config().require("kubeconfig") });`,
      "",
    ].join("\n"),
  );
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "floor", workDir: dir },
    {
      envVars: { ...local.env },
      pulumiCommand: await PulumiCommand.get({ root: path.dirname(path.dirname(local.pulumi)) }),
    },
  );
  await stack.setConfig("kubeconfig", { value: estate.bed.members[0].kubeconfigPath });
  return stack;
}

async function engineFloor(stack: Stack): Promise<EngineFloor> {
  const up = await timed(() => stack.up({ ...LOCAL_RUN_OPTIONS, color: "never" }));
  const noChangeUp = await timed(() => stack.up({ ...LOCAL_RUN_OPTIONS, color: "never" }));
  const preview = await timed(() => stack.preview({ ...LOCAL_RUN_OPTIONS, color: "never" }));
  const destroy = await timed(() => stack.destroy({ ...LOCAL_RUN_OPTIONS, color: "never" }));
  return { up: up.ms, noChangeUp: noChangeUp.ms, preview: preview.ms, destroy: destroy.ms };
}

/**
 * The same resources without our program: a preview and a no-change `up` of the bare program that
 * registers the estate's state again, against a copy of that state. Throws unless every step is `same`
 * — a replay that differs measures something else.
 */
async function sameResourcesFloor(estate: LocalEstate, local: LocalStack): Promise<Round["bare"]> {
  const replay = await sameResourcesStack(estate.dir, local);
  try {
    const preview = await measured("preview, bare program, same resources", (onEvent) =>
      replay.stack.preview({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent }),
    );
    // checked before the `up`: a replay that differs would otherwise apply its difference to the hosts
    const differs = changes(preview.result.changeSummary);
    if (differs.length)
      throw new Error(`the bare replay of the estate's state differs: ${differs.join(", ")}`);
    const again = await measured("no-change up, bare program, same resources", (onEvent) =>
      replay.stack.up({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent }),
    );
    const applied = changes(again.result.summary.resourceChanges);
    if (applied.length) throw new Error(`the bare replay's no-change up changed ${applied.join(", ")}`);
    return { preview: preview.ms, noChangeUp: again.ms };
  } finally {
    replay.dispose();
  }
}

/** Health URLs of the control-plane components (`<host>/<component>`), from their ready commands. */
async function healthProbes(stack: Stack, hosts: readonly string[]): Promise<Map<string, string>> {
  const probes = new Map<string, string>();
  for (const r of (await stack.exportStack()).deployment.resources ?? []) {
    const name: string = r.urn.split("::").pop();
    const script: unknown = r.inputs?.create;
    for (const host of hosts) {
      const prefix = `karmada-${host}-ready-`;
      const url = typeof script === "string" ? /healthy at (\S+?)'/.exec(script)?.[1] : undefined;
      if (name.startsWith(prefix) && url) probes.set(`${host}/${name.slice(prefix.length)}`, url);
    }
  }
  return probes;
}

/**
 * Reinstalls the etcd and control-plane machines from the image, their host keys kept (the stack pins
 * them): whatever a round left there is gone and the next `up` starts from nothing.
 */
async function reinstallHosts(estate: LocalEstate): Promise<void> {
  const { lab, etcdHosts, controlPlaneHosts } = estate.bed;
  await Promise.all(
    [...etcdHosts, ...controlPlaneHosts].map((host) => reinstallMachine(lab.plan, host.machine)),
  );
}

/** The estate's stack (and its settings) for this bench's engine operations. */
async function benchStack(
  estate: LocalEstate,
  edit?: SettingsEdit,
): Promise<{ stack: Stack; local: LocalStack }> {
  const { stack, local } = await estate.stack(edit);
  if (!SKIP_CHECKPOINTS) return { stack, local };
  stack.workspace.envVars[SKIP_CHECKPOINTS_VAR] = "true";
  return { stack, local: { ...local, env: { ...local.env, [SKIP_CHECKPOINTS_VAR]: "true" } } };
}

async function round(estate: LocalEstate, index: number): Promise<Round> {
  console.log(`\n=== round ${index + 1} of ${ROUNDS}`);
  if (index > 0) await reinstallHosts(estate);
  const { stack, local } = await benchStack(estate);
  const engine = await engineFloor(await floorStack(estate, local));

  const up = await measured("up", (onEvent) => stack.up({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent }));
  // The processes by hand, on the estate as `up` left it: every service stopped in destroy order and
  // started in install order (before the pull agent runs, which a restarted control plane would leave
  // reconnecting during the measured operations).
  const cpHosts = estate.bed.controlPlaneHosts.map((h) => h.name);
  const probes = await healthProbes(stack, cpHosts);
  const services = await runningServices(estate.bed, probes);
  const stop = await stopAllByHand(services);
  const start = await startAllByHand(services);
  // As `npm start`: the pull members' agents run (the stand-in for the agent Deployment's pod), every
  // Cluster Ready — so the destroy's drain is finalized by an agent, as on a real member.
  await startAgentsAndWait(estate.bed, writeAdminKubeconfig(estate.dir, local));
  // The first operation after a bring-up costs the fresh API servers ≈ 1.3 s more CPU (their caches),
  // whichever program runs it — ours or the bare replay: it warms them up unmeasured, so that neither
  // the figure nor its floor carries it.
  const warmUp = await measured("no-change up, warming the API servers (not a figure)", (onEvent) =>
    stack.up({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent }),
  );
  const again = await measured("no-change up", (onEvent) =>
    stack.up({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent }),
  );
  const preview = await measured("preview", (onEvent) =>
    stack.preview({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent }),
  );
  const unexpected = [
    ...changes(warmUp.result.summary.resourceChanges).map((c) => `first no-change up: ${c}`),
    ...changes(again.result.summary.resourceChanges).map((c) => `no-change up: ${c}`),
    ...changes(preview.result.changeSummary).map((c) => `preview: ${c}`),
  ];
  if (unexpected.length) throw new Error(`the unchanged estate reported changes: ${unexpected.join(", ")}`);
  const bare = await sameResourcesFloor(estate, local);

  const staged = stageSchedulerVersion(estate, UPGRADE_VERSION);
  const upgraded = await benchStack(estate, (config) => {
    config["karmada:controlPlane"].hosts.components.scheduler = {
      version: UPGRADE_VERSION,
      binaries: { path: staged },
    };
  });
  const upgrade = await measured(`upgrade ${UPGRADED}`, (onEvent) =>
    upgraded.stack.up({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent }),
  );
  const updated = changes(upgrade.result.summary.resourceChanges);
  if (updated.join() !== "update 4") throw new Error(`the upgrade changed ${updated.join(", ")}`);

  // the upgraded services, as they run now (the scheduler from its new binary)
  const roll = await rollByHand(await runningServices(estate.bed, probes), `pk-${UPGRADED}`, cpHosts);
  const tiers = (run: ByHand) => run.tiers.map((t) => `${t.services} ${seconds(t.ms)}`).join(", ");
  console.log(`by hand (${services.length} services): roll ${UPGRADED} ${seconds(roll)}`);
  console.log(`  start ${seconds(start.ms)}: ${tiers(start)}`);
  console.log(`  stop ${seconds(stop.ms)}: ${tiers(stop)}`);

  const before = (await upgraded.stack.exportStack()).deployment.resources as StateResource[];
  const destroy = await measured("destroy", (onEvent) =>
    upgraded.stack.destroy({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent }),
  );
  for (const member of estate.bed.members.filter((m) => m.mode === "Pull"))
    await stopPullAgent(estate.dir, member.clusterName);
  const destroySchedule = describeDestroySchedule(before, destroy.steps);
  return {
    up: up.ms,
    noChangeUp: again.ms,
    preview: preview.ms,
    upgrade: upgrade.ms,
    destroy: destroy.ms,
    destroySchedule,
    engine,
    bare,
    processes: { start: start.ms, roll, stop: stop.ms },
  };
}

/** One figure of the bench: what is timed, its target, and what its floor is made of. */
interface FigureSpec {
  readonly id: string;
  readonly figure: string;
  readonly maxSeconds: number;
  readonly ours: (r: Round) => number;
  /** The engine's part of the floor (the floor program's matching operation). */
  readonly engine: (r: Round) => number;
  /**
   * The floor with the same resources: the bare program replaying the estate's state. When given, it
   * is the baseline, the empty program's figure a note beside it.
   */
  readonly bare?: { readonly label: string; readonly ms: (r: Round) => number };
  /** The processes' part of the floor, when the operation starts, restarts or stops any. */
  readonly processes?: { readonly label: string; readonly ms: (r: Round) => number };
  /** More for the note, given the median of a pick. */
  readonly more?: (m: (pick: (r: Round) => number) => string) => string;
}

const BARE = "bare Pulumi program, same resources replayed from the state";

const FIGURES: readonly FigureSpec[] = [
  {
    id: "up",
    figure: "binary estate: up from nothing",
    maxSeconds: 60,
    ours: (r) => r.up,
    engine: (r) => r.engine.up,
    processes: { label: "processes started by hand, install order, healthy", ms: (r) => r.processes.start },
  },
  {
    id: "no-change-up",
    figure: "binary estate: no-change up",
    maxSeconds: 10,
    ours: (r) => r.noChangeUp,
    engine: (r) => r.engine.noChangeUp,
    bare: { label: `${BARE}, no-change up`, ms: (r) => r.bare.noChangeUp },
  },
  {
    id: "preview",
    figure: "binary estate: preview",
    maxSeconds: 5,
    ours: (r) => r.preview,
    engine: (r) => r.engine.preview,
    bare: { label: `${BARE}, preview`, ms: (r) => r.bare.preview },
  },
  {
    id: "upgrade-one-component",
    figure: `binary estate: ${UPGRADED} upgrade, rolling`,
    maxSeconds: 10,
    ours: (r) => r.upgrade,
    engine: (r) => r.engine.noChangeUp,
    bare: { label: `${BARE}, no-change up`, ms: (r) => r.bare.noChangeUp },
    processes: { label: `${UPGRADED} restarted by hand host by host`, ms: (r) => r.processes.roll },
  },
  {
    id: "destroy",
    figure: "binary estate: destroy",
    maxSeconds: 45,
    ours: (r) => r.destroy,
    engine: (r) => r.engine.destroy,
    processes: { label: "processes stopped by hand, destroy order", ms: (r) => r.processes.stop },
  },
  {
    // what the destroy would take with the engine's level barriers lifted: our graph's delete chain
    id: "destroy.by-dependencies",
    figure: "binary estate: destroy, its steps scheduled by their dependencies alone",
    maxSeconds: 45,
    ours: (r) => r.destroySchedule.byDependencies,
    engine: (r) => r.engine.destroy,
    processes: { label: "processes stopped by hand, destroy order", ms: (r) => r.processes.stop },
    more: (m) =>
      `; the same steps level by level, as the engine schedules deletes, ${m((r) => r.destroySchedule.levelByLevel)}` +
      `, the destroy as measured ${m((r) => r.destroy)}`,
  },
];

function report(rounds: readonly Round[]): void {
  const all = (pick: (r: Round) => number) => rounds.map(pick);
  const m = (pick: (r: Round) => number) => seconds(median(all(pick)));
  console.log("");
  for (const f of FIGURES) {
    const target: BenchTarget = { kind: "seconds", max: f.maxSeconds };
    const floor = f.bare ?? { label: "engine", ms: f.engine };
    const empty =
      "engine with no resource work (CLI, language host, tls/random/command/kubernetes providers)";
    reportFigure(
      figureOf({
        bench: BENCH,
        id: `${BENCH}.${f.id}${SKIP_CHECKPOINTS ? ".without-checkpoints" : ""}`,
        figure: SKIP_CHECKPOINTS
          ? `${f.figure}, the engine's per-step state checkpoints skipped (${SKIP_CHECKPOINTS_VAR})`
          : f.figure,
        ours: all(f.ours),
        baselineLabel: [
          f.bare?.label ?? (f.processes ? "engine" : "engine with no resource work"),
          f.processes?.label,
        ]
          .filter(Boolean)
          .join(" + "),
        baseline: all((r) => floor.ms(r) + (f.processes?.ms(r) ?? 0)),
        target,
        note:
          `floor = ${f.bare ? `${f.bare.label} ${m(f.bare.ms)}` : `engine ${m(f.engine)}`}` +
          (f.processes ? ` + ${f.processes.label} ${m(f.processes.ms)}` : "") +
          (f.bare ? `; ${empty}: ${m(f.engine)}` : " (empty program)") +
          (f.more?.(m) ?? ""),
      }),
    );
  }
}

async function main(): Promise<void> {
  const estate = await startLocalEstate("pk-bench-");
  const rounds: Round[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(estate, i));
  } finally {
    await estate.stop();
  }
  report(rounds);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
