/**
 * Where the engine's time goes: per-resource step durations from the Automation API's event stream
 * (the `--json` events of `pulumi up/preview/destroy`), summed per resource type. A step starts with
 * its `resourcePreEvent` and ends with `resOutputsEvent` (or `resOpFailedEvent`); the time is taken
 * when each event arrives, which is as precise as the stream is streamed (tens of milliseconds).
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";

/** One finished step. */
export interface StepTiming {
  readonly urn: string;
  readonly type: string;
  readonly op: string;
  readonly ms: number;
}

/** Time spent per resource type and operation. */
export interface KindTiming {
  readonly type: string;
  readonly op: string;
  readonly count: number;
  /** Sum of the steps' durations (steps overlap: this is work, not wall time). */
  readonly totalMs: number;
  /** The slowest step of this kind. */
  readonly maxMs: number;
  readonly slowest: string;
}

/** Collects step timings: pass `onEvent` to `stack.up/preview/destroy`, then read `steps()`. */
export class EngineStepClock {
  private readonly started = new Map<string, { at: number; type: string; op: string }>();
  private readonly done: StepTiming[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  readonly onEvent = (event: EngineEvent): void => {
    const at = this.now();
    const pre = event.resourcePreEvent?.metadata;
    if (pre) {
      this.started.set(pre.urn, { at, type: pre.type, op: pre.op });
      return;
    }
    const end = event.resOutputsEvent?.metadata ?? event.resOpFailedEvent?.metadata;
    if (!end) return;
    const start = this.started.get(end.urn);
    if (!start) return;
    this.started.delete(end.urn);
    this.done.push({ urn: end.urn, type: start.type, op: start.op, ms: at - start.at });
  };

  /** Every finished step, in the order they finished. */
  steps(): readonly StepTiming[] {
    return this.done;
  }
}

/** Steps summed per type and operation, most expensive first. `same` steps are left out. */
export function timingsByKind(steps: readonly StepTiming[]): KindTiming[] {
  const byKey = new Map<
    string,
    { type: string; op: string; count: number; totalMs: number; maxMs: number; slowest: string }
  >();
  for (const s of steps) {
    if (s.op === "same") continue;
    const key = `${s.type} ${s.op}`;
    const k = byKey.get(key) ?? { type: s.type, op: s.op, count: 0, totalMs: 0, maxMs: 0, slowest: "" };
    k.count++;
    k.totalMs += s.ms;
    if (s.ms >= k.maxMs) {
      k.maxMs = s.ms;
      k.slowest = s.urn.split("::").pop() ?? s.urn;
    }
    byKey.set(key, k);
  }
  return [...byKey.values()].sort((a, b) => b.totalMs - a.totalMs);
}

/** A short table for people: the `limit` most expensive kinds. */
export function describeKindTimings(kinds: readonly KindTiming[], limit = 8): string {
  return kinds
    .slice(0, limit)
    .map(
      (k) =>
        `  ${k.type} ${k.op} ×${k.count}: ${(k.totalMs / 1000).toFixed(1)} s in all, slowest ${(k.maxMs / 1000).toFixed(1)} s (${k.slowest})`,
    )
    .join("\n");
}
