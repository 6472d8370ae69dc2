import { ConfigError, show } from "../validation/errors";
import { parseUrn } from "./urn";

/**
 * The parts of `pulumi preview --json` output (the engine's PreviewDigest) that summaries read. Steps
 * hold every changed resource (and, with `--show-sames`, unchanged ones); replacements appear as one
 * logical `replace` step unless `--show-replacement-steps` adds the `create-replacement` /
 * `delete-replaced` halves.
 */
export interface PreviewDigest {
  /** Config used (secrets blinded). @default {} */
  readonly config?: Readonly<Record<string, string>>;
  /** @default [] */
  readonly steps?: readonly PreviewStep[];
  /** @default [] */
  readonly diagnostics?: readonly PreviewDiagnostic[];
  /** Nanoseconds. */
  readonly duration?: number;
  /** Count per operation, including `same`. @default - counted from the steps */
  readonly changeSummary?: Readonly<Record<string, number>>;
}

/** One resource operation of a preview. */
export interface PreviewStep {
  /** `same`, `create`, `update`, `delete`, `replace`, `create-replacement`, `delete-replaced`, `read`, … */
  readonly op: string;
  readonly urn: string;
  /** Provider reference (`<provider urn>::<id>`). */
  readonly provider?: string;
  readonly oldState?: PreviewResourceState;
  readonly newState?: PreviewResourceState;
  /** Properties whose change causes an update. */
  readonly diffReasons?: readonly string[];
  /** Properties whose change forces the replacement. */
  readonly replaceReasons?: readonly string[];
  readonly detailedDiff?: Readonly<
    Record<string, { readonly kind: string; readonly inputDiff: boolean }>
  > | null;
}

/** The fields of a step's old/new resource state used here. */
interface PreviewResourceState {
  readonly urn?: string;
  readonly type?: string;
  /** false for component resources. */
  readonly custom?: boolean;
  /** URN of the parent resource. */
  readonly parent?: string;
}

/** A warning or error reported during the preview. */
interface PreviewDiagnostic {
  readonly urn?: string;
  readonly message?: string;
  /** `info`, `warning`, `error`, … */
  readonly severity?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Parses the text `pulumi preview --json` printed. Checks the fields summaries depend on, so a truncated or
 * foreign file fails with the offending field named rather than producing an empty summary.
 */
export function parsePreviewDigest(text: string, field = "preview"): PreviewDigest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(
      field,
      `is not JSON (${(e as Error).message})`,
      "the output of `pulumi preview --json`",
    );
  }
  if (!isObject(value)) {
    throw new ConfigError(
      field,
      `is ${show(Array.isArray(value) ? "an array" : value)}, not an object`,
      "a PreviewDigest object",
    );
  }
  const steps = value.steps ?? [];
  if (!Array.isArray(steps)) throw new ConfigError(`${field}.steps`, "is not an array");
  steps.forEach((step: unknown, i) => {
    const at = `${field}.steps[${i}]`;
    if (!isObject(step)) throw new ConfigError(at, "is not an object");
    if (typeof step.op !== "string" || step.op === "")
      throw new ConfigError(`${at}.op`, `${show(step.op)} is not an operation`);
    parseUrn(step.urn as string, `${at}.urn`);
    for (const key of ["diffReasons", "replaceReasons"] as const) {
      const reasons = step[key];
      if (
        reasons !== undefined &&
        reasons !== null &&
        !(Array.isArray(reasons) && reasons.every((r) => typeof r === "string"))
      ) {
        throw new ConfigError(`${at}.${key}`, "is not a list of property names");
      }
    }
  });
  const summary = value.changeSummary;
  if (summary !== undefined && summary !== null) {
    if (
      !isObject(summary) ||
      !Object.values(summary).every((n) => Number.isInteger(n) && (n as number) >= 0)
    ) {
      throw new ConfigError(`${field}.changeSummary`, "is not a map of operation → count");
    }
  }
  if (value.diagnostics !== undefined && value.diagnostics !== null && !Array.isArray(value.diagnostics)) {
    throw new ConfigError(`${field}.diagnostics`, "is not an array");
  }
  return value as PreviewDigest;
}
