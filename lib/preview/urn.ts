import { ConfigError, show } from "../validation/errors";

/** The parts of a Pulumi URN: `urn:pulumi:<stack>::<project>::<parent types$…$type>::<name>`. */
export interface ParsedUrn {
  readonly stack: string;
  readonly project: string;
  /** Types of the parent chain and the resource itself, outermost first (the root stack is not part of it). */
  readonly typeChain: readonly string[];
  /** The resource's own type token, e.g. `kubernetes:apps/v1:Deployment`. */
  readonly type: string;
  /** The resource's logical name (may itself contain `::`). */
  readonly name: string;
}

/** Type token of the root stack resource. */
export const STACK_TYPE = "pulumi:pulumi:Stack";

/** Splits a URN into its parts; `field` names it in the error when it is not a Pulumi URN. */
export function parseUrn(urn: string, field = "urn"): ParsedUrn {
  const parts = typeof urn === "string" ? urn.split("::") : [];
  const head = parts[0] ?? "";
  if (parts.length < 4 || !head.startsWith("urn:pulumi:") || parts[2] === "") {
    throw new ConfigError(
      field,
      `${show(urn)} is not a Pulumi URN`,
      "urn:pulumi:<stack>::<project>::<type>::<name>",
    );
  }
  const typeChain = parts[2].split("$");
  return {
    stack: head.slice("urn:pulumi:".length),
    project: parts[1],
    typeChain,
    type: typeChain[typeChain.length - 1],
    name: parts.slice(3).join("::"),
  };
}

/** The last segment of a type token: `karmada:index:KarmadaControlPlane` → `KarmadaControlPlane`. */
export function shortTypeName(type: string): string {
  const segments = type.split(":");
  return segments[segments.length - 1] || type;
}
