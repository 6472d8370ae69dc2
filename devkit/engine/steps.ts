/**
 * Per-resource step events of an engine run (`onEvent` → `resourcePreEvent.metadata`), for asserting
 * exactly which resources a preview or update touches and how.
 */
import { EngineEvent } from "@pulumi/pulumi/automation";
import { parseUrn } from "../../lib/preview/urn";

/** One step the engine announced. */
export interface StepRecord {
  /** `same`, `create`, `update`, `replace`, `create-replacement`, `delete-replaced`, `delete`, `read`, … */
  readonly op: string;
  readonly urn: string;
  /** Type token, e.g. `kubernetes:apps/v1:Deployment`. */
  readonly type: string;
  /** Logical name (from the URN). */
  readonly name: string;
}

/** A step log: pass `onEvent` to preview/up/destroy, then read `steps`. */
export interface StepRecorder {
  readonly steps: StepRecord[];
  /**
   * Resources the engine could not diff because their provider's configuration is unknown during the
   * preview (it shows them as updates and says so in a warning per resource).
   */
  readonly diffUnavailable: Set<string>;
  readonly onEvent: (event: EngineEvent) => void;
}

/** Records every resource pre-event, and the engine's "diff unavailable" warnings. */
export function recordSteps(): StepRecorder {
  const steps: StepRecord[] = [];
  const diffUnavailable = new Set<string>();
  return {
    steps,
    diffUnavailable,
    onEvent: (event) => {
      const diag = event.diagnosticEvent;
      if (diag?.urn && /inputs that are not known during preview/.test(diag.message)) {
        diffUnavailable.add(diag.urn);
      }
      const md = event.resourcePreEvent?.metadata;
      if (!md) return;
      steps.push({ op: md.op, urn: md.urn, type: md.type, name: parseUrn(md.urn).name });
    },
  };
}

/** Steps that change nothing: `same`, and `read` (a `.get` of an object the program does not manage). */
const UNCHANGING = new Set(["same", "read"]);

/** Operations per resource, for resources with any operation that changes something (URN → sorted distinct ops). */
export function changedResources(steps: readonly StepRecord[]): Map<string, string[]> {
  const ops = new Map<string, Set<string>>();
  for (const step of steps) {
    if (UNCHANGING.has(step.op)) continue;
    const set = ops.get(step.urn) ?? new Set<string>();
    set.add(step.op);
    ops.set(step.urn, set);
  }
  return new Map([...ops.entries()].map(([urn, set]) => [urn, [...set].sort()]));
}

/** `<type> <name>: <ops>` lines of the changed resources, sorted: readable in assertion failures. */
export function describeChanges(steps: readonly StepRecord[]): string[] {
  return [...changedResources(steps).entries()]
    .map(([urn, ops]) => {
      const parsed = parseUrn(urn);
      return `${parsed.type} ${parsed.name}: ${ops.join(",")}`;
    })
    .sort();
}
