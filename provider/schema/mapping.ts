/**
 * What the schema's type mapping is made of, apart from the mapper itself: where a type is met, what it
 * maps to, and the view of the mapper that the object and union mappers (objects.ts, unions.ts) recurse
 * through — so they and the mapper (typeMapper.ts) do not import each other.
 */
import type * as ts from "typescript";
import type { Registry } from "./registry";
import type { TypeSpec } from "./spec";

/** Where a type is met: names anonymous types and says where an error is. */
export interface Site {
  /** `<Owner>.<property>` with `[]` / `{}` for array items and map values, e.g. `HostSpec.proxy`. */
  readonly field: string;
  /** The component or object type holding the property. */
  readonly owner: string;
  readonly property: string;
  /** The declared type node, for alias names the checker does not keep. */
  readonly typeNode?: ts.TypeNode;
}

/** A mapped type and the notes its description needs (allowed keys, allowed numbers). */
export interface Mapped {
  readonly spec: TypeSpec;
  readonly notes: readonly string[];
}

/** A value that cannot cross the wire (a function, a promise, a resource without schema type). */
export class Unrepresentable extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** The mapper as the object and union mappers use it: recursion, names, the registry and the checker. */
export interface TypeMapping {
  readonly checker: ts.TypeChecker;
  readonly registry: Registry;
  /** The repository root (source locations in error messages are relative to it). */
  readonly root: string;
  /** The schema type of `type` (or of the union of `types`, for tuples) at `site`. */
  mapType(type: ts.Type | readonly ts.Type[], site: Site): Mapped;
  /** The name a named type keeps (and the symbol declaring it), else `<Owner><Property>`. */
  nameFor(type: ts.Type | undefined, site: Site): { readonly name: string; readonly symbol?: ts.Symbol };
}
