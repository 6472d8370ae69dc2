/**
 * Object types and their properties: an interface, object literal or intersection becomes one object
 * type (`karmada:index:<Name>`); each property carries its description, `secret` flag and whether it is
 * required. Fields that cannot cross the wire are left out and recorded in the registry's skip list.
 */
import * as ts from "typescript";
import { describe, docComment } from "./docs";
import { anonymousName, isIdentifierKey, token } from "./naming";
import { isSecretProperty } from "./secrets";
import { ObjectTypeSpec, PropertySpec, TypeSpec, typeRef } from "./spec";
import { FieldDoc } from "./registry";
import { declaredTypeNode, isOptional, locationOf } from "./tsTypes";
import type { Mapped, Site, TypeMapping } from "./mapping";
import { Unrepresentable } from "./mapping";

/** One property as the schema has it. */
export interface MappedProperty {
  readonly name: string;
  readonly spec: PropertySpec;
  readonly required: boolean;
  /** Whether it has a description of its own (or of the type it refers to), and where it is declared. */
  readonly doc: FieldDoc;
}

/** The first `#/types/…` token `spec` refers to (itself, its items or its values). */
function referencedToken(spec: TypeSpec): string | undefined {
  const ref = spec.$ref ?? spec.items?.$ref ?? spec.additionalProperties?.$ref;
  return ref?.startsWith("#/types/") ? ref.slice("#/types/".length) : undefined;
}

/** The first paragraph of the description of the type `spec` refers to, if any. */
function referencedSummary(mapper: TypeMapping, spec: TypeSpec): string {
  const referenced = referencedToken(spec);
  const description = referenced ? mapper.registry.types.get(referenced)?.description : undefined;
  return description?.split("\n\n")[0] ?? "";
}

/**
 * The schema property for `symbol`, a property of `owner` (a component or an object type), or undefined
 * when it cannot cross the wire (recorded as skipped). A property without a summary of its own takes the
 * one of the type it refers to; `notes` are added to the description (e.g. which variants it applies to).
 */
export function mapProperty(
  mapper: TypeMapping,
  symbol: ts.Symbol,
  owner: string,
  notes: readonly string[] = [],
): MappedProperty | undefined {
  const site: Site = {
    field: `${owner}.${symbol.name}`,
    owner,
    property: symbol.name,
    typeNode: declaredTypeNode(symbol),
  };
  let mapped: Mapped;
  try {
    mapped = mapper.mapType(mapper.checker.getTypeOfSymbol(symbol), site);
  } catch (error) {
    if (!(error instanceof Unrepresentable)) throw error;
    mapper.registry.skip(site.field, error.reason);
    return undefined;
  }
  const doc = docComment(symbol, mapper.checker);
  const summary = doc.summary || referencedSummary(mapper, mapped.spec);
  const description = describe(summary, [...mapped.notes, ...notes], doc.defaultText);
  const secret = isSecretProperty(symbol.name, describe(doc.summary, [], doc.defaultText));
  return {
    name: symbol.name,
    required: !isOptional(symbol, mapper.checker),
    spec: { ...mapped.spec, ...(description ? { description } : {}), ...(secret ? { secret: true } : {}) },
    doc: { documented: summary.length > 0, location: locationOf(symbol, mapper.root) },
  };
}

/** Records the doc status of an object type's properties under `<TypeName>.<property>`. */
export function recordDocs(
  mapper: TypeMapping,
  typeName: string,
  properties: readonly MappedProperty[],
): void {
  for (const p of properties) mapper.registry.fieldDocs.set(`${typeName}.${p.name}`, p.doc);
}

/** Properties and required names of an object type built from `properties`. */
export function objectSpec(properties: readonly MappedProperty[], description?: string): ObjectTypeSpec {
  const required = properties.filter((p) => p.required).map((p) => p.name);
  return {
    type: "object",
    ...(description ? { description } : {}),
    properties: Object.fromEntries(properties.map((p) => [p.name, p.spec])),
    ...(required.length > 0 ? { required } : {}),
  };
}

/** The token of the object type for `type` met at `site`, defining it (and what it refers to) once. */
export function objectType(mapper: TypeMapping, type: ts.Type, site: Site): string {
  const known = mapper.registry.tokenOfType.get(type);
  if (known) return known;
  const { name, symbol } = mapper.nameFor(type, site);
  const objectToken = token(name);
  // defined before its properties are mapped, so that a type referring to itself finds its token
  mapper.registry.define(objectToken, objectSpec([]), type);
  const properties = mapper.checker
    .getPropertiesOfType(type)
    .map((p) => mapProperty(mapper, p, name))
    .filter((p): p is MappedProperty => p !== undefined);
  const description = symbol ? describe(docComment(symbol, mapper.checker).summary, []) : undefined;
  recordDocs(mapper, name, properties);
  mapper.registry.define(objectToken, objectSpec(properties, description), type);
  return objectToken;
}

/**
 * A record over literal keys (`Partial<Record<ComponentKey, ComponentConfig>>`): an object type with one
 * property per key, described by the value type's doc comment, when every key is an identifier; else a
 * map whose description lists the keys.
 */
export function keyedRecordType(mapper: TypeMapping, type: ts.Type, site: Site): Mapped {
  const keys = type.getProperties();
  const identifiers = keys.every((k) => isIdentifierKey(k.name));
  if (!identifiers) {
    const values = mapper.mapType(
      keys.map((k) => mapper.checker.getTypeOfSymbol(k)),
      { ...site, field: `${site.field}{}`, typeNode: undefined },
    );
    const note = `Keys: ${keys.map((k) => `\`${k.name}\``).join(", ")}.`;
    return { spec: { type: "object", additionalProperties: values.spec }, notes: [...values.notes, note] };
  }
  const known = mapper.registry.tokenOfType.get(type);
  if (known) return { spec: { $ref: typeRef(known) }, notes: [] };
  const name = anonymousName(site.owner, site.property);
  const recordToken = token(name);
  mapper.registry.define(recordToken, objectSpec([]), type);
  const properties = keys
    .map((key) => mapProperty(mapper, key, name))
    .filter((p): p is MappedProperty => p !== undefined);
  recordDocs(mapper, name, properties);
  mapper.registry.define(recordToken, objectSpec(properties), type);
  return { spec: { $ref: typeRef(recordToken) }, notes: [] };
}
