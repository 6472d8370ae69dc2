/**
 * JSON helpers of the schema file: a canonical form (keys sorted at every level, sets sorted) and the
 * differences between two documents, for `--check`'s message.
 */

/** Where the schema is written, relative to the repository root. */
export const SCHEMA_FILE = "provider/schema.json";

/** Arrays whose order means nothing. */
const SETS = new Set(["required", "requiredInputs", "oneOf"]);

/** `value` with object keys sorted recursively and the arrays in {@link SETS} sorted. */
export function sortedDeep(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => sortedDeep(v));
    if (!key || !SETS.has(key)) return items;
    return items.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return Object.fromEntries(
    entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sortedDeep(v, k)]),
  );
}

/** Where two JSON values differ, as `path: committed → generated` lines (at most `limit`). */
export function jsonDifferences(committed: unknown, generated: unknown, limit = 20, at = "$"): string[] {
  const show = (v: unknown): string => (v === undefined ? "(absent)" : JSON.stringify(v).slice(0, 80));
  const bothObjects =
    committed !== null &&
    generated !== null &&
    typeof committed === "object" &&
    typeof generated === "object";
  if (!bothObjects || Array.isArray(committed) !== Array.isArray(generated)) {
    return JSON.stringify(committed) === JSON.stringify(generated)
      ? []
      : [`${at}: ${show(committed)} → ${show(generated)}`];
  }
  const a = committed as Record<string, unknown>;
  const b = generated as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    if (lines.length >= limit) break;
    lines.push(...jsonDifferences(a[key], b[key], limit - lines.length, `${at}.${key}`));
  }
  return lines;
}
