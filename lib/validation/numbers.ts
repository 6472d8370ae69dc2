import { ConfigError, show } from "./errors";

/** etcd member counts we accept: odd, so a quorum survives ⌊n/2⌋ failures; etcd advises at most seven. */
export const ETCD_MEMBER_COUNTS = [1, 3, 5, 7] as const;

/** Validates a TCP port, 1–65535; returns it. */
export function validatePort(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new ConfigError(field, `${show(value)} is not a port`, "an integer 1–65535");
  }
  return value;
}

/** Validates an integer of at least `minimum`; returns it. */
export function validateInteger(field: string, value: number, minimum: number, maximum?: number): number {
  const range = maximum === undefined ? `an integer ≥ ${minimum}` : `an integer ${minimum}–${maximum}`;
  if (!Number.isInteger(value) || value < minimum || (maximum !== undefined && value > maximum)) {
    throw new ConfigError(field, `${show(value)} is out of range`, range);
  }
  return value;
}

/**
 * Validates a replica count; returns it.
 * @param minimum smallest count allowed; @default 1 (a control-plane workload with 0 replicas is a
 *   disabled component, which is expressed with `enabled: false` instead)
 */
export function validateReplicas(field: string, value: number, minimum = 1): number {
  // spec.replicas is an int32
  return validateInteger(field, value, minimum, INT32_MAX);
}

/** Largest value of a Kubernetes int32 field. */
export const INT32_MAX = 2 ** 31 - 1;

/**
 * Validates the number of etcd members. Even counts are rejected: 4 members tolerate one failure, like 3,
 * but are more likely to suffer one.
 */
export function validateEtcdMemberCount(field: string, value: number): number {
  if (!(ETCD_MEMBER_COUNTS as readonly number[]).includes(value)) {
    const why =
      Number.isInteger(value) && value > 0 && value % 2 === 0 ? " (even counts add no fault tolerance)" : "";
    throw new ConfigError(
      field,
      `${show(value)} is not a supported etcd member count${why}`,
      ETCD_MEMBER_COUNTS.join(", "),
    );
  }
  return value;
}
