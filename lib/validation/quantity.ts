import { ConfigError, ErrorCollector, check, show } from "./errors";
import { isQualifiedName, keyField } from "./labels";
import { requireMap } from "./maps";

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

const STANDARD_RESOURCES = ["cpu", "memory", "ephemeral-storage"];
const RESOURCE_NAME_FORM = "cpu, memory, ephemeral-storage, hugepages-<size> or domain/name";

/** The page size of a `hugepages-<size>` name, or undefined for any other name. */
function hugePageSize(name: string): number | undefined {
  const size = /^hugepages-(.+)$/.exec(name)?.[1];
  const bytes = size === undefined ? undefined : parseQuantity(size);
  return bytes !== undefined && bytes > 0 && Number.isInteger(bytes) ? bytes : undefined;
}

// An extended resource is `domain/name` outside kubernetes.io (the API server's IsExtendedResourceName).
function isExtendedResource(name: string): boolean {
  const [prefix] = name.split("/");
  return (
    name.includes("/") &&
    isQualifiedName(name) &&
    isQualifiedName(`requests.${name}`) &&
    prefix !== "kubernetes.io" &&
    !prefix.endsWith(".kubernetes.io")
  );
}

/**
 * Validates requests and limits as the API server does for a container, so that a Deployment is never
 * rejected at rollout time, long after `pulumi up` reported success: standard or extended resource names,
 * quantities, no request above its limit; extended resources whole numbers with a limit equal to any
 * request; huge pages a whole multiple of the page size, limited, requested as limited, next to cpu or
 * memory.
 */
export function validateResources(field: string, resources: ResourceQuantities): ResourceQuantities {
  const given: ResourceQuantities = resources;
  requireMap(field, resources, '{ requests?: { cpu: "100m" }, limits?: { memory: "1Gi" } }');
  const errors = new ErrorCollector();
  for (const key of Object.keys(resources)) {
    errors.attempt(() =>
      check(
        key === "requests" || key === "limits",
        `${field}.${key}`,
        "is not requests or limits",
        "requests, limits",
      ),
    );
  }
  const parsed: Record<"requests" | "limits", Map<string, number>> = {
    requests: new Map(),
    limits: new Map(),
  };
  for (const kind of ["requests", "limits"] as const) {
    const quantities = given[kind];
    if (quantities === undefined) continue;
    const isMap = errors.attempt(() => {
      requireMap(`${field}.${kind}`, quantities, `{ "cpu": "100m" }`);
      return true;
    });
    if (!isMap) continue;
    for (const [name, quantity] of Object.entries(quantities ?? {})) {
      const path = keyField(`${field}.${kind}`, name);
      errors.attempt(() => {
        const known = STANDARD_RESOURCES.includes(name) || hugePageSize(name) !== undefined;
        check(
          known || isExtendedResource(name),
          path,
          `${show(name)} is not a resource name`,
          RESOURCE_NAME_FORM,
        );
        const value = validateQuantity(path, quantity);
        if (isExtendedResource(name)) {
          check(
            Number.isInteger(value),
            path,
            `${show(quantity)} is not a whole number`,
            "extended resources count whole units",
          );
        }
        const page = hugePageSize(name);
        if (page !== undefined) {
          check(
            value > 0 && Number.isInteger(value / page),
            path,
            `${show(quantity)} is not a whole number of ${name.slice(10)} pages`,
            `a positive multiple of ${name.slice(10)}`,
          );
        }
        parsed[kind].set(name, value);
      });
    }
  }
  for (const [name, request] of parsed.requests) {
    const limit = parsed.limits.get(name);
    const path = keyField(`${field}.requests`, name);
    const strict = isExtendedResource(name) || hugePageSize(name) !== undefined;
    if (strict) {
      errors.attempt(() => {
        check(
          limit !== undefined,
          path,
          `has no limit: ${name} cannot be overcommitted`,
          `limits.${name} equal to the request, ${given.requests?.[name]}`,
        );
        check(
          limit === request,
          path,
          `request ${show(given.requests?.[name])} differs from limit ${show(given.limits?.[name])}`,
          `equal to the limit: ${name} cannot be overcommitted`,
        );
      });
    } else if (limit !== undefined && request > limit) {
      errors.add(
        new ConfigError(
          path,
          `request ${show(given.requests?.[name])} exceeds limit ${show(given.limits?.[name])}`,
          `at most ${given.limits?.[name]}`,
        ),
      );
    }
  }
  const names = [...parsed.requests.keys(), ...parsed.limits.keys()];
  if (names.some((n) => hugePageSize(n) !== undefined) && !names.some((n) => n === "cpu" || n === "memory")) {
    errors.add(
      new ConfigError(
        field,
        "huge pages are requested without cpu or memory",
        "a cpu or memory request or limit next to hugepages-<size>",
      ),
    );
  }
  errors.throwIfAny();
  return resources;
}
