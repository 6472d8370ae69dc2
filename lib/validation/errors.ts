/**
 * Every validation failure in pulumi-karmada is a `ConfigError`: it names the offending field (a dotted
 * path such as `components.karmadaScheduler.replicas`) and, where the set is finite, the allowed values,
 * so the message alone tells the user what to change. Validation runs while the program is constructed,
 * before any resource is registered, so nothing is applied when it fails.
 */
export class ConfigError extends Error {
  constructor(
    /** Dotted path of the offending input, e.g. `etcd.replicas`. */
    public readonly field: string,
    /** What is wrong, in lower case, showing the bad value. */
    public readonly problem: string,
    /** The allowed values or form, when they can be listed. */
    public readonly allowed?: string,
  ) {
    super(`invalid ${field}: ${problem}${allowed ? ` (allowed: ${allowed})` : ""}`);
    this.name = "ConfigError";
  }
}

/** Throws a {@link ConfigError} unless `condition` holds. */
export function check(
  condition: boolean,
  field: string,
  problem: string,
  allowed?: string,
): asserts condition {
  if (!condition) throw new ConfigError(field, problem, allowed);
}

/** Formats a value for an error message: strings quoted, everything else as JSON (NaN/Infinity as such). */
export function show(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
}
