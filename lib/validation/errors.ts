/**
 * Every validation failure in pulumi-karmada is a `ConfigError`: it names the offending field (a dotted
 * path such as `components.karmadaScheduler.replicas`) and, where the set is finite, the allowed values,
 * so the message alone tells the user what to change. Validation runs while the program is constructed,
 * before any resource is registered, so nothing is applied when it fails.
 */
export class ConfigError extends Error {
  /** The message reads `invalid <field>: <problem> (allowed: <allowed>)`. */
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
  if (typeof value === "string") return JSON.stringify(value);
  // a class instance (a Resource, an Output) is named, never serialized: it may be circular or huge
  const type = typeof value === "object" && value !== null ? value.constructor?.name : undefined;
  if (type && type !== "Object" && type !== "Array") return `a ${type}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Every problem found in one input, reported together: the user fixes them in one round instead of one
 * `pulumi preview` per mistake. A ConfigError itself (field and problem of the first), so callers that
 * catch ConfigError keep working; `errors` holds each problem with its full field path.
 */
export class ConfigErrors extends ConfigError {
  constructor(
    /** What was validated, e.g. `KarmadaControlPlane "karmada"`; empty inside a validator. */
    public readonly subject: string,
    public readonly errors: readonly ConfigError[],
  ) {
    super(errors[0].field, errors[0].problem, errors[0].allowed);
    const prefix = subject ? `${subject}: ` : "";
    this.message =
      errors.length === 1
        ? `${prefix}${errors[0].message}`
        : `${prefix}${errors.length} invalid settings:\n${errors.map((e) => `  - ${e.message}`).join("\n")}`;
    this.name = "ConfigErrors";
  }
}

/** Every ConfigError inside `error` (a ConfigError or ConfigErrors), or none for anything else. */
export function configErrorsOf(error: unknown): readonly ConfigError[] {
  if (error instanceof ConfigErrors) return error.errors;
  if (error instanceof ConfigError) return [error];
  return [];
}

/**
 * Collects the ConfigErrors of independent checks so that all of them are reported, not only the first.
 * A check that needs an earlier one's result runs inside the same `attempt`.
 */
export class ErrorCollector {
  readonly errors: ConfigError[] = [];

  /** Runs `fn`; ConfigErrors are recorded and `undefined` returned, anything else is rethrown. */
  attempt<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.errors.push(...configErrorsOf(error));
      return undefined;
    }
  }

  /** Records a problem directly. */
  add(error: ConfigError): void {
    this.errors.push(error);
  }

  /**
   * Throws what was recorded: the single ConfigError as it is, several as one ConfigErrors, each with
   * its field. `subject` names the component when reporting to the user.
   */
  throwIfAny(subject = ""): void {
    if (this.errors.length === 0) return;
    if (this.errors.length === 1 && !subject) throw this.errors[0];
    throw new ConfigErrors(subject, this.errors);
  }
}

/** Runs independent checks and reports every failure together (see {@link ErrorCollector}). */
export function checkAll(...checks: (() => unknown)[]): void {
  const collector = new ErrorCollector();
  for (const run of checks) collector.attempt(run);
  collector.throwIfAny();
}
