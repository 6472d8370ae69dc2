/**
 * Errors as `application/problem+json` (RFC 9457): a type URI per kind of problem, a title, the status, a
 * detail, and — for setting errors, from the library's validation or the engine's run of the program —
 * each field with what is wrong and what is allowed. Every detail is redacted before it is sent.
 */
import { ConfigError, configErrorsOf } from "../../lib/validation/errors";
import type { OperationRecord } from "./operations";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** A setting at fault. */
export interface FieldProblem {
  /** The setting's path, e.g. `karmada:controlPlane.components.karmada-scheduler.image`. */
  readonly field: string;
  readonly problem: string;
  readonly allowed?: string;
}

/** An RFC 9457 problem document. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** Setting errors. */
  readonly fields?: readonly FieldProblem[];
  /** A 409's running operation. */
  readonly runningOperation?: OperationRecord;
}

const TYPE = "https://pulumi-karmada.dev/problems/";

/** Kinds of problems the API answers with. */
export const PROBLEM_TYPES = {
  unauthorized: `${TYPE}unauthorized`,
  notFound: `${TYPE}not-found`,
  invalidRequest: `${TYPE}invalid-request`,
  invalidSettings: `${TYPE}invalid-settings`,
  stackBusy: `${TYPE}stack-busy`,
  engineFailed: `${TYPE}engine-failed`,
  internal: `${TYPE}internal`,
} as const;

/** The library's ConfigError message: `invalid <field>: <problem> (allowed: <allowed>)`. */
const CONFIG_ERROR_LINE = /invalid (\S+?): (.+?)(?: \(allowed: (.+)\))?$/;

/** Setting errors a failed engine run reports (the program threw the library's ConfigError). */
export function fieldProblemsInText(text: string): FieldProblem[] {
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const line of text.split("\n")) {
    const match = CONFIG_ERROR_LINE.exec(line.trim().replace(/^.*?(?=invalid )/, ""));
    if (!match) continue;
    const [, field, problem, allowed] = match;
    if (seen.has(`${field} ${problem}`)) continue;
    seen.add(`${field} ${problem}`);
    out.push({ field, problem, ...(allowed ? { allowed } : {}) });
  }
  return out;
}

/** The problem of a ConfigError (with all its fields). */
export function settingsProblem(error: ConfigError, detail = error.message): Problem {
  return {
    type: PROBLEM_TYPES.invalidSettings,
    title: "Invalid settings",
    status: 422,
    detail,
    fields: configErrorsOf(error).map((e) => ({
      field: e.field,
      problem: e.problem,
      ...(e.allowed ? { allowed: e.allowed } : {}),
    })),
  };
}

/** The problem of an engine run that failed: a settings problem when the program named a setting. */
export function engineProblem(message: string): Problem {
  const fields = fieldProblemsInText(message);
  if (fields.length > 0)
    return {
      type: PROBLEM_TYPES.invalidSettings,
      title: "Invalid settings",
      status: 422,
      detail: message,
      fields,
    };
  return { type: PROBLEM_TYPES.engineFailed, title: "The engine failed", status: 502, detail: message };
}
