/**
 * Bench: push members registered by the real engine (`pulumi up` through the Automation API) against
 * loopback API servers — 10 members in one `up` vs 1 member in one `up`. Registrations that run
 * concurrently keep the ratio low; a needless dependency that serializes them makes it grow with the
 * count. Setup (clusters, the control plane's first `up`, the stand-in's Cluster API) is not measured;
 * each measured `up` adds the members to a deployed control plane and an unmeasured `up` removes them
 * again. BENCH_ROUNDS (default 3) rounds, 1 and 10 alternating, medians.
 * Run: npx ts-node --transpile-only -P tsconfig.json bench/push-members.ts
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { EngineStepClock, describeKindTimings, timingsByKind } from "./support/engineTimings";
import { figureOf, median, reportFigure, timed } from "./support/figures";
import { MembersEstate, serveClusterApiLocally, startMembersEstate } from "./support/graphMembersEstate";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MANY = 10;

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

/** One measured `up` registering `count` members, then an unmeasured one removing them. */
async function measureUp(estate: MembersEstate, count: number): Promise<{ ms: number; spanMs: number }> {
  estate.setMemberCount(count);
  const span = new MemberSpan();
  const { ms, result } = await timed(() => estate.stack.up({ onEvent: span.onEvent }));
  if (result.summary.result !== "succeeded")
    throw new Error(`up with ${count} members: ${result.summary.result}`);
  const created = result.summary.resourceChanges?.create ?? 0;
  console.log(
    `  ${count} member(s): ${(ms / 1000).toFixed(1)} s, ${created} resources created; members' own span ` +
      `${(span.spanMs() / 1000).toFixed(1)} s, ${span.concurrency().toFixed(1)} of their steps at a time`,
  );
  console.log(describeKindTimings(timingsByKind(span.clock.steps()), 5));
  estate.setMemberCount(0);
  const removed = await estate.stack.up();
  if (removed.summary.result !== "succeeded") throw new Error(`removing ${count} members failed`);
  return { ms, spanMs: span.spanMs() };
}

async function main(): Promise<void> {
  console.log(`push-members: starting the host, karmada-api stand-in and ${MANY} member API servers`);
  const estate = await startMembersEstate(MANY);
  try {
    const setup = await timed(() => estate.stack.up());
    if (setup.result.summary.result !== "succeeded") throw new Error("the control plane's up failed");
    await serveClusterApiLocally(estate.karmadaApi);
    console.log(`  control plane deployed in ${(setup.ms / 1000).toFixed(0)} s (not measured)`);
    const runs = {
      one: [] as { ms: number; spanMs: number }[],
      many: [] as { ms: number; spanMs: number }[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [1, MANY] : [MANY, 1];
      for (const count of order) runs[count === 1 ? "one" : "many"].push(await measureUp(estate, count));
    }
    const spans = (list: { spanMs: number }[]) => (median(list.map((r) => r.spanMs)) / 1000).toFixed(1);
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
          `own span ${spans(runs.many)} s vs ${spans(runs.one)} s`,
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
