/**
 * An operation's progress as the API streams it, reduced from the engine's events: one `step` event when
 * a resource's step starts and one when it ends (with its duration), diagnostics of the levels a person
 * reads (never `debug`: the engine's debug output carries plaintext inputs), and the summary. Nothing of a
 * resource's inputs or outputs is passed on.
 */
import type { EngineEvent, StepEventMetadata } from "@pulumi/pulumi/automation";
import { parseUrn } from "../../lib/preview/urn";

/** A resource as events name it. */
interface ResourceRef {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
}

/** How a step ended, or that it started. */
type StepStatus = "started" | "done" | "failed";

/** One event of an operation's stream. */
export type ProgressEvent =
  | {
      readonly kind: "step";
      readonly seq: number;
      readonly at: string;
      readonly resource: ResourceRef;
      /** The engine's operation: `create`, `update`, `replace`, `delete`, `same`, `refresh` … */
      readonly op: string;
      readonly status: StepStatus;
      /** From start to end of this step; ends only. */
      readonly durationMs?: number;
    }
  | {
      readonly kind: "diagnostic";
      readonly seq: number;
      readonly at: string;
      readonly severity: "info" | "warning" | "error";
      readonly message: string;
      readonly resource?: ResourceRef;
    }
  | {
      readonly kind: "summary";
      readonly seq: number;
      readonly at: string;
      /** Resources per operation, `same` included. */
      readonly changes: Readonly<Record<string, number>>;
      readonly durationSeconds: number;
    }
  | {
      readonly kind: "status";
      readonly seq: number;
      readonly at: string;
      readonly status: "running" | "succeeded" | "failed";
      /** Why it failed (redacted). */
      readonly message?: string;
    };

/** Diagnostics passed on, by the engine's severity. */
const SEVERITIES: Readonly<Record<string, "info" | "warning" | "error">> = {
  info: "info",
  "info#err": "info",
  warning: "warning",
  error: "error",
};

function resourceOf(urn: string): ResourceRef {
  const parsed = parseUrn(urn);
  return { urn, type: parsed.type, name: parsed.name };
}

/** The engine's metadata of a step, as a resource reference and its operation. */
const stepOf = (metadata: StepEventMetadata) => ({ resource: resourceOf(metadata.urn), op: metadata.op });

/** Turns engine events into progress events, numbering them; remembers when each step started. */
export class ProgressTracker {
  private seq = 0;
  private readonly started = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The next event number. */
  private next(): { seq: number; at: string } {
    return { seq: ++this.seq, at: new Date(this.now()).toISOString() };
  }

  /** A status event (the operation's own start and end). */
  status(status: "running" | "succeeded" | "failed", message?: string): ProgressEvent {
    return { kind: "status", ...this.next(), status, ...(message !== undefined ? { message } : {}) };
  }

  /** The progress events of one engine event (none for what the stream leaves out). */
  consume(event: EngineEvent): ProgressEvent[] {
    // when the server saw it: the engine stamps whole seconds
    const at = this.now();
    if (event.resourcePreEvent) {
      const { resource, op } = stepOf(event.resourcePreEvent.metadata);
      this.started.set(`${op} ${resource.urn}`, at);
      return [{ kind: "step", ...this.next(), resource, op, status: "started" }];
    }
    const ended = event.resOutputsEvent ?? event.resOpFailedEvent;
    if (ended) {
      const { resource, op } = stepOf(ended.metadata);
      const start = this.started.get(`${op} ${resource.urn}`);
      this.started.delete(`${op} ${resource.urn}`);
      return [
        {
          kind: "step",
          ...this.next(),
          resource,
          op,
          status: event.resOpFailedEvent ? "failed" : "done",
          ...(start !== undefined ? { durationMs: Math.max(0, at - start) } : {}),
        },
      ];
    }
    const diagnostic = event.diagnosticEvent;
    if (diagnostic) {
      const severity = SEVERITIES[diagnostic.severity];
      if (!severity || diagnostic.ephemeral) return [];
      const message = diagnostic.message.trim();
      if (message === "") return [];
      return [
        {
          kind: "diagnostic",
          ...this.next(),
          severity,
          message,
          ...(diagnostic.urn ? { resource: resourceOf(diagnostic.urn) } : {}),
        },
      ];
    }
    if (event.summaryEvent) {
      return [
        {
          kind: "summary",
          ...this.next(),
          changes: { ...event.summaryEvent.resourceChanges },
          durationSeconds: event.summaryEvent.durationSeconds,
        },
      ];
    }
    return [];
  }
}
