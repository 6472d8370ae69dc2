/**
 * The graph bench's requests: what the recording mocks (devkit/mocks.ts) answered, in the form a bare
 * program replays to register exactly the same graph (bench/support/graphReplay.ts).
 */
import * as settings from "@pulumi/pulumi/runtime/settings";
import type { RecordedCall } from "../../devkit/mocks";

/** One request the monitor answered, as recorded: enough to register the same resource again. */
export interface RecordedRequest {
  /** `register` for a new resource, `read` for `Resource.get`. */
  readonly op: "register" | "read";
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly custom: boolean;
  /** URN of the parent; empty for none. */
  readonly parent: string;
  /** Provider reference `<urn>::<id>`; empty for none. */
  readonly provider: string;
  /** Every resource it waited for: explicit `dependsOn` and those its inputs came from. */
  readonly dependencies: string[];
  /** Inputs as sent; secrets still wrapped in the wire format's secret marker. */
  readonly inputs: Record<string, unknown>;
  /** The id of a read. */
  readonly id?: string;
  /** Resource options that change how the engine diffs or deletes it (replays of a stack's state). */
  readonly options?: RecordedOptions;
}

/** The resource options a stack's state keeps that change how the engine diffs or deletes a resource. */
export interface RecordedOptions {
  readonly protect?: boolean;
  readonly retainOnDelete?: boolean;
  readonly deleteBeforeReplace?: boolean;
  readonly ignoreChanges?: string[];
  readonly replaceOnChanges?: string[];
  readonly additionalSecretOutputs?: string[];
  /** In the wire format, secrets marked as in `inputs`. */
  readonly replacementTrigger?: unknown;
  /** URN of the resource whose deletion skips this one's. */
  readonly deletedWith?: string;
}

/**
 * A request the recording mocks (devkit/mocks.ts) answered, in the replay's form: a registration's
 * dependencies are its explicit and its inputs' together, its inputs as sent.
 */
export function replayRequest(call: RecordedCall): RecordedRequest {
  const shared = {
    type: call.type,
    name: call.name,
    urn: call.urn,
    parent: call.parentUrn,
    provider: call.provider,
    inputs: call.wireInputs,
  };
  return call.op === "register"
    ? {
        op: "register",
        ...shared,
        custom: call.custom,
        dependencies: [...new Set([...call.dependencies, ...call.inputDependencies])],
      }
    : { op: "read", ...shared, custom: true, dependencies: call.dependencies, id: call.id };
}

/**
 * Resolves once every registration the program started has been answered, as at the end of a program
 * run (`disconnect` drains the outstanding requests first).
 */
export function graphSettled(): Promise<void> {
  return settings.disconnect();
}
