/**
 * The policy pack's settings: one object per stack (`pulumi preview --policy-pack-config <file>`), each
 * rule's enforcement level and the rule's own parameters. Defaults live here and nowhere else.
 */
import { ConfigError, show } from "../validation/errors";

/** How a finding is treated: `mandatory` fails the preview/up, `advisory` only reports, `disabled` skips. */
export type EnforcementLevel = "mandatory" | "advisory" | "disabled";

/** Parameters of the rules that take any. */
export interface PolicyParameters {
  /** Fewest etcd members (an odd number keeps a majority through one loss). @default 3 */
  readonly minEtcdMembers: number;
  /** Longest leaf certificate life in hours. @default 8760 (one year) */
  readonly maxLeafValidityHours: number;
  /**
   * A leaf certificate must have at least this long left: less means renewal has not run (each `up`
   * renews leaves inside their renew window). @default 720 (30 days)
   */
  readonly minLeafRemainingHours: number;
  /** Registries (host[:port][/path]) images may come from; empty leaves images unchecked. @default [] */
  readonly allowedRegistries: readonly string[];
}

export const DEFAULT_POLICY_PARAMETERS: PolicyParameters = {
  minEtcdMembers: 3,
  maxLeafValidityHours: 8760,
  minLeafRemainingHours: 720,
  allowedRegistries: [],
};

/** Reads the pack config's parameters (any rule's entry may carry them), naming a bad field. */
export function resolvePolicyParameters(
  raw: Partial<Record<keyof PolicyParameters, unknown>>,
): PolicyParameters {
  const count = (field: keyof PolicyParameters, min: number): number => {
    const value = raw[field] ?? DEFAULT_POLICY_PARAMETERS[field];
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
      throw new ConfigError(field, `${show(value)} is not a whole number ≥ ${min}`);
    }
    return value;
  };
  const registries = raw.allowedRegistries ?? DEFAULT_POLICY_PARAMETERS.allowedRegistries;
  if (
    !Array.isArray(registries) ||
    registries.some((r) => typeof r !== "string" || r === "" || r.endsWith("/"))
  ) {
    throw new ConfigError(
      "allowedRegistries",
      `${show(registries)} is not a list of registries`,
      'registry hosts with optional port and path, no trailing "/", e.g. ["registry.corp.example:5000/karmada"]',
    );
  }
  return {
    minEtcdMembers: count("minEtcdMembers", 1),
    maxLeafValidityHours: count("maxLeafValidityHours", 1),
    minLeafRemainingHours: count("minLeafRemainingHours", 0),
    allowedRegistries: registries as string[],
  };
}

/** JSON schema of each parameter, for the pack's per-rule config schema. */
export const POLICY_PARAMETER_SCHEMAS: Readonly<Record<keyof PolicyParameters, Record<string, unknown>>> = {
  minEtcdMembers: { type: "integer", minimum: 1, default: DEFAULT_POLICY_PARAMETERS.minEtcdMembers },
  maxLeafValidityHours: {
    type: "integer",
    minimum: 1,
    default: DEFAULT_POLICY_PARAMETERS.maxLeafValidityHours,
  },
  minLeafRemainingHours: {
    type: "integer",
    minimum: 0,
    default: DEFAULT_POLICY_PARAMETERS.minLeafRemainingHours,
  },
  allowedRegistries: { type: "array", items: { type: "string", minLength: 1 }, default: [] },
};
