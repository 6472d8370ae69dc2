/** Following `$ref`s from schema types to the named types of the package. */
import { ComplexTypeSpec, TypeSpec } from "./spec";

const TYPE_PREFIX = "#/types/";

/** Tokens of the package's types `spec` refers to directly (itself, items, values, union members). */
export function typeTokensOf(spec: TypeSpec): string[] {
  const nested = [spec.items, spec.additionalProperties, ...(spec.oneOf ?? [])].filter(
    (s): s is TypeSpec => !!s,
  );
  const own = spec.$ref?.startsWith(TYPE_PREFIX) ? [spec.$ref.slice(TYPE_PREFIX.length)] : [];
  return [...own, ...nested.flatMap(typeTokensOf)];
}

/** Every type token reachable from `roots` through `types`' properties. */
export function reachableTypes(
  types: ReadonlyMap<string, ComplexTypeSpec>,
  roots: readonly TypeSpec[],
): Set<string> {
  const reached = new Set<string>();
  const pending = roots.flatMap(typeTokensOf);
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (reached.has(next)) continue;
    reached.add(next);
    const type = types.get(next);
    if (type && "properties" in type) pending.push(...Object.values(type.properties).flatMap(typeTokensOf));
  }
  return reached;
}
