import { ConfigError, show } from "./errors";

/** A value that occurs more than once, with where it first and next occurs. */
export interface Duplicate<T> {
  /** The repeated value (as it appears at `index`). */
  readonly value: T;
  /** Index of its first occurrence. */
  readonly firstIndex: number;
  /** Index of this repeat. */
  readonly index: number;
}

/**
 * Every repeat in `values` (each later occurrence reported once, in order), compared by `key` — e.g. a
 * canonical form so `::1` and `0::1` count as the same address.
 */
export function findDuplicates<T>(
  values: readonly T[],
  key: (value: T) => unknown = (v) => v,
): Duplicate<T>[] {
  const seen = new Map<unknown, number>();
  const duplicates: Duplicate<T>[] = [];
  values.forEach((value, index) => {
    const k = key(value);
    const firstIndex = seen.get(k);
    if (firstIndex === undefined) seen.set(k, index);
    else duplicates.push({ value, firstIndex, index });
  });
  return duplicates;
}

/** Throws a {@link ConfigError} naming the first duplicate in `values`; returns `values` otherwise. */
export function validateUnique<T>(
  field: string,
  values: readonly T[],
  key?: (value: T) => unknown,
): readonly T[] {
  const [first] = findDuplicates(values, key);
  if (first) {
    throw new ConfigError(
      `${field}[${first.index}]`,
      `duplicate ${show(first.value)} (already at ${field}[${first.firstIndex}])`,
      "each value once",
    );
  }
  return values;
}
