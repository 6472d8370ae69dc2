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

/**
 * One of the two client identities the Pulumi providers for karmada-apiserver take turns with. Each is
 * renewed every second slot window, the two a window apart, and the providers always use the one *not*
 * renewed in the current window: its certificate is already in the state, so a preview knows the
 * providers' kubeconfig and diffs every object inside Karmada, even while the other slot (or every other
 * leaf, on a generation bump) is being renewed.
 */
export type ProviderSlot = "a" | "b";

/** The slots, in issue order. */
export const PROVIDER_SLOTS: readonly ProviderSlot[] = ["a", "b"];

/**
 * Length of a slot window in hours: a third of the slot certificate's validity (at least one hour). A slot
 * is in use for the window after the one it was renewed in, so it is at most two windows — two thirds of
 * its validity — old while in use, given one `pulumi up` per window.
 */
export function slotWindowHours(validityHours: number): number {
  validateInteger("validityHours", validityHours, 2);
  return Math.max(1, Math.floor(validityHours / 3));
}

/** Index of the slot window `nowMs` falls in (windows anchored at the epoch, as the leaves'). */
function slotWindowIndex(nowMs: number, validityHours: number): number {
  if (!Number.isFinite(nowMs) || nowMs < 0)
    throw new ConfigError("now", `${nowMs} is not a time after the epoch`);
  return Math.floor(nowMs / (slotWindowHours(validityHours) * HOUR_MS));
}

/**
 * The `replacementTrigger` of a provider slot's key and certificate: slot `a` changes when an even window
 * starts, slot `b` when an odd one starts. No generation: the slots live only in the stack's state, which
 * also holds the CA keys, so reissuing them protects nothing a leaked state would not give away anyway.
 */
export function slotRotationTrigger(slot: ProviderSlot, validityHours: number, nowMs: number): string {
  const index = slotWindowIndex(nowMs, validityHours);
  const turn = slot === "a" ? Math.floor(index / 2) : Math.floor((index + 1) / 2);
  return `slot=${slot};window=${2 * slotWindowHours(validityHours)}h/${turn}`;
}

/** The slot the providers use now: the one whose trigger did not change when the current window began. */
export function providerSlotInUse(validityHours: number, nowMs: number): ProviderSlot {
  return slotWindowIndex(nowMs, validityHours) % 2 === 0 ? "b" : "a";
}
