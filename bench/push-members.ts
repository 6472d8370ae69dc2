/**
 * Bench: push members registered by the real engine (`pulumi up` through the Automation API) against
 * loopback API servers — 10 members in one `up` vs 1 member in one `up`. Registrations that run
 * concurrently keep the ratio low; a needless dependency that serializes them makes it grow with the
 * count. Setup (clusters, the control plane's first `up`, the stand-in's Cluster API) is not measured;
 * each measured `up` adds the members to a deployed control plane and an unmeasured `up` removes them
 * again. BENCH_ROUNDS (default 3) rounds, 1 and 10 alternating, medians.
 * Run: npx ts-node --transpile-only -P tsconfig.json bench/push-members.ts
 */
import type { EngineEvent, LocalWorkspace } from "@pulumi/pulumi/automation";
import { CpuMeter, CpuUse, describeCpuUse } from "./support/cpuUse";
import { EngineStepClock, describeKindTimings, timingsByKind } from "./support/engineTimings";
import { figureOf, median, reportFigure, timed } from "./support/figures";
import { MembersEstate, serveClusterApiLocally, startMembersEstate } from "./support/graphMembersEstate";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MANY = 10;

/**
 * The engine's setting that writes the state once at the end of an `up` instead of after every step.
 * The DIY backend rewrites the whole state (≈ 3 MB here: the provider keeps each Kubernetes object
 * three times) after each step, so that cost grows with steps × state size; the floor run shows what
 * registering the members costs without it. Not a recommendation: a killed `up` then records nothing.
 */
const SKIP_CHECKPOINTS = "PULUMI_SKIP_CHECKPOINTS";

const isMemberStep = (urn: string) => urn.includes("::karmada:index:MemberRegistration");

/**
 * The members' part of an `up`: from the first step of a member's resource to the last one finished,
 * and how many of their steps ran at once on average in that span (their step time over the span).
 */
class MemberSpan {
  private first = Number.POSITIVE_INFINITY;
  private last = 0;
  readonly clock = new EngineStepClock();

  readonly onEvent = (event: EngineEvent): void => {
    this.clock.onEvent(event);
    const at = performance.now();
    const started = event.resourcePreEvent?.metadata;
    if (started && isMemberStep(started.urn)) this.first = Math.min(this.first, at);
    const ended = event.resOutputsEvent?.metadata;
    if (ended && isMemberStep(ended.urn)) this.last = Math.max(this.last, at);
  };

  /** Milliseconds from the first member step to the last. */
  spanMs(): number {
    return Math.max(0, this.last - this.first);
  }

  /** Member step time / span. */
  concurrency(): number {
    const work = this.clock
      .steps()
      .filter((step) => step.op !== "same" && isMemberStep(step.urn))
      .reduce((sum, step) => sum + step.ms, 0);
    return work / Math.max(1, this.spanMs());
  }
}

interface MeasuredUp {
  readonly ms: number;
  readonly spanMs: number;
  readonly cpu: CpuUse;
}

/**
 * One measured `up` registering `count` members, then an unmeasured one removing them; with
 * `skipCheckpoints`, the measured `up` runs with {@link SKIP_CHECKPOINTS}.
 */
async function measureUp(estate: MembersEstate, count: number, skipCheckpoints = false): Promise<MeasuredUp> {
  const engineEnv = (estate.stack.workspace as LocalWorkspace).envVars;
  estate.setMemberCount(count);
  const span = new MemberSpan();
  const meter = new CpuMeter();
  meter.start();
  if (skipCheckpoints) engineEnv[SKIP_CHECKPOINTS] = "true";
  const { ms, result } = await timed(() => estate.stack.up({ onEvent: span.onEvent })).finally(
    () => delete engineEnv[SKIP_CHECKPOINTS],
  );
  const cpu = meter.stop();
  if (result.summary.result !== "succeeded")
    throw new Error(`up with ${count} members: ${result.summary.result}`);
  const created = result.summary.resourceChanges?.create ?? 0;
  console.log(
    `  ${count} member(s)${skipCheckpoints ? `, ${SKIP_CHECKPOINTS}` : ""}: ${(ms / 1000).toFixed(1)} s, ${created} resources created; members' own span ` +
      `${(span.spanMs() / 1000).toFixed(1)} s, ${span.concurrency().toFixed(1)} of their steps at a time`,
  );
  console.log(describeKindTimings(timingsByKind(span.clock.steps()), 5));
  console.log(describeCpuUse(cpu));
  estate.setMemberCount(0);
  const removed = await estate.stack.up();
  if (removed.summary.result !== "succeeded") throw new Error(`removing ${count} members failed`);
  return { ms, spanMs: span.spanMs(), cpu };
}

async function main(): Promise<void> {
  console.log(`push-members: starting the host, karmada-api stand-in and ${MANY} member API servers`);
  const estate = await startMembersEstate(MANY);
  try {
    const setup = await timed(() => estate.stack.up());
    if (setup.result.summary.result !== "succeeded") throw new Error("the control plane's up failed");
    await serveClusterApiLocally(estate.karmadaApi);
    console.log(`  control plane deployed in ${(setup.ms / 1000).toFixed(0)} s (not measured)`);
    const runs = { one: [] as MeasuredUp[], many: [] as MeasuredUp[] };
    const floor = { one: [] as MeasuredUp[], many: [] as MeasuredUp[] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [1, MANY] : [MANY, 1];
      for (const count of order) runs[count === 1 ? "one" : "many"].push(await measureUp(estate, count));
      for (const count of order)
        floor[count === 1 ? "one" : "many"].push(await measureUp(estate, count, true));
    }
    const spans = (list: MeasuredUp[]) => (median(list.map((r) => r.spanMs)) / 1000).toFixed(1);
    const busy = (list: MeasuredUp[]) => median(list.map((r) => r.cpu.busyMs));
    const cores = runs.many[0].cpu.cores;
    const engineCpu = (r: MeasuredUp) => r.cpu.byProgram.find((p) => p.program === "pulumi")?.ms ?? 0;
    reportFigure(
      figureOf({
        bench: "push-members",
        id: "push-members.ten-vs-one",
        figure: `${MANY} push members in one \`up\` vs one member (real engine, loopback API servers)`,
        ours: runs.many.map((r) => r.ms),
        baselineLabel: "one member's `up`",
        baseline: runs.one.map((r) => r.ms),
        target: { kind: "ratio", max: 3 },
        note:
          `each \`up\` adds the members to a deployed control plane (removal not measured); the members' ` +
          `own span ${spans(runs.many)} s vs ${spans(runs.one)} s; the machine's CPU time ` +
          `${(busy(runs.many) / 1000).toFixed(1)} s vs ${(busy(runs.one) / 1000).toFixed(1)} s: ` +
          `on ${cores} cores the ten-member \`up\` cannot take less than ` +
          `${(busy(runs.many) / cores / 1000).toFixed(1)} s (its CPU floor)`,
      }),
    );
    reportFigure(
      figureOf({
        bench: "push-members",
        id: "push-members.ten-vs-one.without-checkpoints",
        figure: `${MANY} push members vs one, the engine's per-step state checkpoints skipped (${SKIP_CHECKPOINTS})`,
        ours: floor.many.map((r) => r.ms),
        baselineLabel: "one member's `up`, the same setting",
        baseline: floor.one.map((r) => r.ms),
        target: { kind: "ratio", max: 3 },
        note:
          `what registering the members costs when the engine writes the state once instead of after each ` +
          `step; the engine's own CPU ${(median(floor.many.map((r) => engineCpu(r))) / 1000).toFixed(1)} s ` +
          `vs ${(median(runs.many.map((r) => engineCpu(r))) / 1000).toFixed(1)} s with checkpoints`,
      }),
    );
  } finally {
    await estate.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
