import { ConfigError } from "../../../lib/validation/errors";

/** Runs `fn`, expecting a {@link ConfigError}; returns it for assertions on field, problem and allowed. */
export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw new Error(`expected a ConfigError, got ${String(error)}`);
  }
  throw new Error("expected a ConfigError, but nothing was thrown");
}
