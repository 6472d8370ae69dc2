/**
 * TypeScript type → schema type. The rules:
 * - `pulumi.Input<T>` and `pulumi.Output<T>` → T; anything not wrapped in them is `plain` (the component
 *   reads it while it is constructed, so SDKs must not take an eventual value there);
 * - `string`, `boolean`; `number` → `integer` where the property's name says it counts whole things
 *   ({@link INTEGER_NAME}: replicas, ports, counts, hours, minutes, seconds, bytes, generations), else
 *   `number`; a union of number literals is that type, its values listed in the description;
 * - a union of string literals → an enum type named after its alias, else `<Owner><Property>`;
 * - arrays, readonly arrays, tuples → `items`; `Record<string, T>` and index signatures →
 *   `additionalProperties`; a record over literal keys → an object type when every key is an identifier
 *   (`apiServer`), else a map whose description lists the keys;
 * - an object with an index signature besides named fields, `unknown`, `any` → `pulumi.json#/Any`;
 * - interfaces and object literals → object types (objects.ts); a union of object types → one merged
 *   object type keyed by its discriminant (unions.ts);
 * - resources → see resources.ts; functions and lone promises cannot cross the wire ({@link Unrepresentable}).
 */
import * as ts from "typescript";
import { docComment } from "./docs";
import { anonymousName, declaredTypeName, isDeclaredName, token } from "./naming";
import { keyedRecordType, objectType } from "./objects";
import { Registry } from "./registry";
import { ResourceContext, mapResource } from "./resources";
import { ANY_REF, EnumTypeSpec, TypeSpec, typeRef } from "./spec";
import {
  aliasOfNode,
  arrayElements,
  indexValueType,
  isAnyOrUnknown,
  isBooleanLike,
  isFunction,
  isKeyedRecord,
  isNumberLike,
  isResource,
  isStringLike,
  promiseInner,
  unwrapEventual,
} from "./tsTypes";
import { Mapped, Site, TypeMapping, Unrepresentable } from "./mapping";
import { mergedUnionType } from "./unions";

export type { Mapped, Site };

/** Property names whose numbers are whole: counts, ports, durations in whole units, sizes in bytes. */
const INTEGER_NAME = /(?:replicas|port|count|retain|generation|hours|minutes|seconds|bytes)$/i;

/** Objects, and intersections of them (`Partial<A> & { b?: string }`). */
const isObjectLike = (type: ts.Type): boolean =>
  (type.flags & ts.TypeFlags.Object) !== 0 || type.isIntersection();

const primitive = (type: "string" | "boolean" | "number" | "integer", notes: string[] = []): Mapped => ({
  spec: { type },
  notes,
});

/** The element type node of `T[]` / `readonly T[]`, for alias names of array items. */
function elementTypeNode(node: ts.TypeNode | undefined): ts.TypeNode | undefined {
  if (node && ts.isTypeOperatorNode(node)) return elementTypeNode(node.type);
  return node && ts.isArrayTypeNode(node) ? node.elementType : undefined;
}

/** Maps TypeScript types into a {@link Registry}; one instance per generation. */
export class TypeMapper implements TypeMapping {
  constructor(
    readonly checker: ts.TypeChecker,
    readonly registry: Registry,
    readonly resources: ResourceContext,
    readonly root: string,
  ) {}

  /** The schema type of `type` (or of the union of `types`, for tuples) at `site`. */
  mapType(type: ts.Type | readonly ts.Type[], site: Site): Mapped {
    const parts = Array.isArray(type) ? type : [type as ts.Type];
    const unwrapped = parts.map((t) => unwrapEventual(t, this.checker));
    const members = [...new Set(unwrapped.flatMap((u) => u.members))];
    const eventual = unwrapped.some((u) => u.eventual);
    const mapped = this.mapMembers(members, parts.length === 1 ? parts[0] : undefined, site);
    const plain = !eventual && mapped.spec.$ref !== ANY_REF;
    return plain ? { ...mapped, spec: { ...mapped.spec, plain: true } } : mapped;
  }

  private mapMembers(members: readonly ts.Type[], whole: ts.Type | undefined, site: Site): Mapped {
    if (members.length === 0) throw new Error(`${site.field}: no value can have its type`);
    if (members.some(isAnyOrUnknown)) return { spec: { $ref: ANY_REF }, notes: [] };
    if (members.every(isBooleanLike)) return primitive("boolean");
    if (members.every(isStringLike)) {
      // `string`, template literals and the like absorb the literals beside them
      if (!members.every((m) => m.isStringLiteral())) return primitive("string");
      return this.enumType(members, whole, site);
    }
    if (members.every(isNumberLike)) return this.numberType(members, site);
    if (members.length === 1) return this.mapSingle(members[0], site);
    if (members.every((m) => this.isObjectType(m))) return mergedUnionType(this, members, whole, site);
    return this.unionType(members, site);
  }

  /**
   * A union of different kinds (`number | string`): each kind mapped on its own — the strings, numbers,
   * booleans and objects among the members as one group each — then `oneOf` the distinct results.
   */
  private unionType(members: readonly ts.Type[], site: Site): Mapped {
    const kinds = [isStringLike, isNumberLike, isBooleanLike, (m: ts.Type) => this.isObjectType(m)];
    const kindOf = (m: ts.Type): number => kinds.findIndex((is) => is(m));
    const groups = [
      ...kinds.map((_, kind) => members.filter((m) => kindOf(m) === kind)),
      ...members.filter((m) => kindOf(m) < 0).map((m) => [m]),
    ].filter((group) => group.length > 0);
    // the declared alias names the whole union, not a group of it
    const groupSite = { ...site, typeNode: undefined };
    const specs: TypeSpec[] = [];
    for (const group of groups) {
      const { spec } = this.mapMembers(group, undefined, groupSite);
      if (!specs.some((s) => JSON.stringify(s) === JSON.stringify(spec))) specs.push(spec);
    }
    return { spec: specs.length === 1 ? specs[0] : { oneOf: specs }, notes: [] };
  }

  private numberType(members: readonly ts.Type[], site: Site): Mapped {
    const literals = members.filter((m): m is ts.NumberLiteralType => m.isNumberLiteral());
    if (literals.length < members.length)
      return primitive(INTEGER_NAME.test(site.property) ? "integer" : "number");
    const values = literals.map((l) => l.value).sort((a, b) => a - b);
    const note = `One of ${values.join(", ")}.`;
    return primitive(values.every(Number.isInteger) ? "integer" : "number", [note]);
  }

  /** Whether `type` becomes an object type (rather than an array, map, resource or function). */
  isObjectType(type: ts.Type): boolean {
    return (
      isObjectLike(type) &&
      arrayElements(type, this.checker) === undefined &&
      indexValueType(type, this.checker) === undefined &&
      !isFunction(type) &&
      !isResource(type, this.checker) &&
      promiseInner(type, this.checker) === undefined
    );
  }

  private mapSingle(type: ts.Type, site: Site): Mapped {
    if (promiseInner(type, this.checker)) throw new Unrepresentable("promise (not serializable)");
    if (isFunction(type)) throw new Unrepresentable("function (not serializable)");
    const elements = arrayElements(type, this.checker);
    if (elements) {
      const itemSite = { ...site, field: `${site.field}[]`, typeNode: elementTypeNode(site.typeNode) };
      const items = this.within("array of", () => this.mapType(elements, itemSite));
      return { spec: { type: "array", items: items.spec }, notes: items.notes };
    }
    if (isResource(type, this.checker)) return this.resourceType(type, site);
    const indexValue = indexValueType(type, this.checker);
    if (indexValue && type.getProperties().length > 0) return { spec: { $ref: ANY_REF }, notes: [] };
    if (indexValue) {
      const valueSite = { ...site, field: `${site.field}{}`, typeNode: undefined };
      const values = this.within("map of", () => this.mapType(indexValue, valueSite));
      return { spec: { type: "object", additionalProperties: values.spec }, notes: values.notes };
    }
    if (isKeyedRecord(type)) return keyedRecordType(this, type, site);
    if (isObjectLike(type)) return { spec: { $ref: typeRef(objectType(this, type, site)) }, notes: [] };
    throw new Error(`${site.field}: no schema type for ${this.checker.typeToString(type)}`);
  }

  /** `map()`, an {@link Unrepresentable} it throws prefixed with what contains it. */
  private within(container: string, map: () => Mapped): Mapped {
    try {
      return map();
    } catch (error) {
      throw error instanceof Unrepresentable ? new Unrepresentable(`${container} ${error.reason}`) : error;
    }
  }

  private resourceType(type: ts.Type, site: Site): Mapped {
    const mapping = mapResource(type, site.field, this.resources);
    if ("skipReason" in mapping) throw new Unrepresentable(mapping.skipReason);
    if (mapping.dependency) this.registry.depend(mapping.dependency);
    return { spec: mapping.spec, notes: [] };
  }

  /** The name a named type keeps (and the symbol declaring it), else `<Owner><Property>`. */
  nameFor(type: ts.Type | undefined, site: Site): { readonly name: string; readonly symbol?: ts.Symbol } {
    const alias = aliasOfNode(site.typeNode, this.checker) ?? type?.aliasSymbol;
    if (alias && isDeclaredName(alias.name)) return { name: declaredTypeName(alias.name), symbol: alias };
    const symbol = type?.getSymbol();
    const declared = symbol && symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class);
    if (type && !type.isIntersection() && declared && isDeclaredName(symbol.name)) {
      return { name: declaredTypeName(symbol.name), symbol };
    }
    return { name: anonymousName(site.owner, site.property) };
  }

  /** An enum type of string literals (values sorted, so the schema does not follow the checker's order). */
  enumType(literals: readonly ts.Type[], whole: ts.Type | undefined, site: Site): Mapped {
    const { name, symbol } = this.nameFor(whole, site);
    const enumToken = token(name);
    const values = literals.map((l) => (l as ts.StringLiteralType).value).sort();
    const existing = this.registry.types.get(enumToken);
    if (existing) {
      const same =
        "enum" in existing && JSON.stringify(existing.enum.map((v) => v.value)) === JSON.stringify(values);
      if (!same) throw new Error(`${site.field}: enum ${enumToken} is already defined with other values`);
      return { spec: { $ref: typeRef(enumToken) }, notes: [] };
    }
    const description = symbol ? docComment(symbol, this.checker).summary : "";
    const spec: EnumTypeSpec = {
      type: "string",
      ...(description ? { description } : {}),
      enum: values.map((value) => ({ value })),
    };
    this.registry.define(enumToken, spec);
    return { spec: { $ref: typeRef(enumToken) }, notes: [] };
  }
}
