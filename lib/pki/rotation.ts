import { ConfigError } from "../validation/errors";
import { validateInteger } from "../validation/numbers";

const HOUR_MS = 3_600_000;

/** How and when leaf certificates are renewed. */
export interface RotationSettings {
  /**
   * Renew a leaf this many hours before it expires (at the latest). Must be below the leaf validity.
   * @default a third of the leaf validity (cert-manager's default), e.g. 2920h for a 1-year leaf
   */
  readonly renewBeforeHours?: number;
  /**
   * "Rotate now" counter: bump it (0 → 1 → 2 …) to reissue every leaf on the next `pulumi up`.
   * @default 0
   */
  readonly generation?: number;
  /** Clock, in epoch milliseconds; injectable for tests. @default Date.now */
  readonly now?: () => number;
}

/** Inputs of {@link rotationTrigger} for one leaf. */
export interface RotationInput {
  /** Leaf validity, in hours (at least 2). */
  readonly validityHours: number;
  /** See {@link RotationSettings.renewBeforeHours}. @default a third of `validityHours` */
  readonly renewBeforeHours?: number;
  /** See {@link RotationSettings.generation}. @default 0 */
  readonly generation?: number;
  /** Current time, epoch milliseconds. */
  readonly nowMs: number;
}

/** The renew-before margin a leaf gets: the explicit one, validated, or a third of its validity. */
export function renewBeforeHours(
  validityHours: number,
  renewBefore?: number,
  field = "rotation.renewBeforeHours",
): number {
  validateInteger("validityHours", validityHours, 2);
  if (renewBefore === undefined) return Math.floor(validityHours / 3);
  validateInteger(field, renewBefore, 0);
  if (renewBefore >= validityHours) {
    throw new ConfigError(
      field,
      `${renewBefore}h is not below the validity of ${validityHours}h`,
      `0–${validityHours - 1}`,
    );
  }
  return renewBefore;
}

/**
 * Index of the rotation window `nowMs` falls in: windows are `validity − renewBefore` hours long and
 * anchored at the epoch. A leaf issued in window k was issued no earlier than its start, so the window
 * ends — and the trigger changes — at least `renewBefore` hours before that leaf expires.
 */
export function rotationWindowIndex(nowMs: number, validityHours: number, renewBefore: number): number {
  if (!Number.isFinite(nowMs) || nowMs < 0)
    throw new ConfigError("now", `${nowMs} is not a time after the epoch`);
  return Math.floor(nowMs / ((validityHours - renewBefore) * HOUR_MS));
}

/**
 * The `replacementTrigger` of a leaf certificate: changes when the rotation window changes or the
 * generation is bumped, and stays identical otherwise, so a no-change `pulumi up` stays a no-op. The tls
 * provider does not renew on a plain `up`; this string is what makes renewal happen.
 */
export function rotationTrigger(input: RotationInput): string {
  const margin = renewBeforeHours(input.validityHours, input.renewBeforeHours);
  const generation = validateInteger("rotation.generation", input.generation ?? 0, 0);
  const index = rotationWindowIndex(input.nowMs, input.validityHours, margin);
  return `window=${input.validityHours - margin}h/${index};generation=${generation}`;
}
