import { ConfigError, show } from "./errors";
import { isQualifiedName } from "./labels";

/** Multiplier of each Kubernetes quantity suffix (binary SI and decimal SI; exponents are handled apart). */
export const QUANTITY_SUFFIXES: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

// k8s.io/apimachinery/pkg/api/resource grammar, without a sign: resources are never negative.
const QUANTITY =
  /^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

const QUANTITY_FORM =
  "a non-negative number with an optional suffix Ki Mi Gi Ti Pi Ei, n u m k M G T P E, or an exponent e<n>; e.g. 500m, 2, 1Gi, 512Mi";

/** The numeric value of a non-negative Kubernetes quantity (`500m` → 0.5, `1Gi` → 1073741824); undefined if invalid. */
export function parseQuantity(text: string): number | undefined {
  const match = typeof text === "string" ? QUANTITY.exec(text) : null;
  if (!match) return undefined;
  const [, number, exponent, suffix] = match;
  if (exponent !== undefined) return Number(`${number}${exponent}`);
  return Number(number) * QUANTITY_SUFFIXES[suffix ?? ""];
}

/** Validates a non-negative Kubernetes quantity such as `500m` or `1Gi`; returns its numeric value. */
export function validateQuantity(field: string, value: string): number {
  const parsed = parseQuantity(value);
  if (parsed === undefined || !Number.isFinite(parsed)) {
    throw new ConfigError(field, `${show(value)} is not a resource quantity`, QUANTITY_FORM);
  }
  return parsed;
}

/** Requests and limits of a container, resource name → quantity (like `ResourceRequirements` in settings). */
export interface ResourceQuantities {
  /** Guaranteed amounts. @default none */
  readonly requests?: Readonly<Record<string, string>>;
  /** Caps; each must be at least its request. @default none */
  readonly limits?: Readonly<Record<string, string>>;
}

// Standard names are unprefixed (`cpu`, `memory`, `hugepages-2Mi`); extended resources are `domain/name`.
function isResourceName(name: string): boolean {
  return isQualifiedName(name);
}

/**
 * Validates requests and limits: names, quantities, and that no request exceeds its limit (the API server
 * would reject the pod only at rollout time, long after `pulumi up` reported success for the Deployment).
 */
export function validateResources(field: string, resources: ResourceQuantities): ResourceQuantities {
  const parsed: Record<"requests" | "limits", Map<string, number>> = {
    requests: new Map(),
    limits: new Map(),
  };
  for (const kind of ["requests", "limits"] as const) {
    for (const [name, quantity] of Object.entries(resources[kind] ?? {})) {
      const path = `${field}.${kind}.${name}`;
      if (!isResourceName(name)) {
        throw new ConfigError(
          path,
          `${show(name)} is not a resource name`,
          "cpu, memory, ephemeral-storage, hugepages-<size> or domain/name",
        );
      }
      parsed[kind].set(name, validateQuantity(path, quantity));
    }
  }
  for (const [name, request] of parsed.requests) {
    const limit = parsed.limits.get(name);
    if (limit !== undefined && request > limit) {
      throw new ConfigError(
        `${field}.requests.${name}`,
        `request ${show(resources.requests?.[name])} exceeds limit ${show(resources.limits?.[name])}`,
        `at most ${resources.limits?.[name]}`,
      );
    }
  }
  return resources;
}
