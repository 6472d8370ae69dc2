import { check, show } from "./errors";

/**
 * Checks that `value` is a plain map (not a string, list or null): `Object.entries` of a string would
 * walk its characters and blame `field["0"]`.
 */
export function requireMap(field: string, value: unknown, form: string): void {
  check(
    typeof value === "object" && value !== null && !Array.isArray(value),
    field,
    `${show(value)} is not a map`,
    form,
  );
}

/** Own keys only: `constructor` or `toString` must never find a prototype's entry in a lookup table. */
export const hasOwnKey = (table: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(table, key);

/** True for a plain map: an object that is neither null nor a list. */
export const isPlainMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
