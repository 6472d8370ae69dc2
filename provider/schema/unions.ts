/**
 * Discriminated unions of object types (`CrdSource`: `{ kind: "release" } | { kind: "url"; url } | …`)
 * become one object type: the discriminant is an enum (each value described by its variant's doc comment),
 * every other property is the union of the variants' — optional unless every variant requires it — and
 * its description says which variants it applies to. SDKs without union types can then build any variant.
 */
import * as ts from "typescript";
import { describe, docComment } from "./docs";
import { pascal, token } from "./naming";
import { MappedProperty, mapProperty, objectSpec, recordDocs } from "./objects";
import { EnumTypeSpec, typeRef } from "./spec";
import { isOptional } from "./tsTypes";
import type { Mapped, Site, TypeMapping } from "./mapping";

/** One variant of the union and its discriminant value. */
interface Variant {
  readonly type: ts.Type;
  readonly value: string;
}

/** The string literal `type`'s property `name` has, if it is one. */
function literalOf(type: ts.Type, name: string, checker: ts.TypeChecker): string | undefined {
  const property = type.getProperty(name);
  const value = property && checker.getNonNullableType(checker.getTypeOfSymbol(property));
  return value?.isStringLiteral() ? value.value : undefined;
}

/** The property every variant declares with its own string literal (`kind`), if there is one. */
function discriminantOf(members: readonly ts.Type[], checker: ts.TypeChecker): string | undefined {
  return members[0].getProperties().find((property) => {
    const values = members.map((m) => literalOf(m, property.name, checker));
    return values.every((v) => v !== undefined) && new Set(values).size === values.length;
  })?.name;
}

const quoted = (values: readonly string[]): string => values.map((v) => `\`${v}\``).join(", ");

/** What the description of a non-discriminant property says about the variants it applies to. */
function appliesTo(
  discriminant: string,
  all: readonly Variant[],
  holders: Variant[],
  requiredIn: Variant[],
): string[] {
  const holderValues = quoted(holders.map((h) => h.value));
  const requiredValues = quoted(requiredIn.map((h) => h.value));
  if (holders.length < all.length) {
    const required =
      requiredIn.length === holders.length
        ? " (required there)"
        : requiredIn.length > 0
          ? `; required with ${requiredValues}`
          : "";
    return [`Only with \`${discriminant}\` ${holderValues}${required}.`];
  }
  if (requiredIn.length > 0 && requiredIn.length < all.length)
    return [`Required with \`${discriminant}\` ${requiredValues}.`];
  return [];
}

/** Schema type of a property apart from its description and secret flag, to compare variants. */
const shape = (property: MappedProperty): string =>
  JSON.stringify({ ...property.spec, description: undefined, secret: undefined });

/** The discriminant: an enum property whose values carry their variants' doc comments. */
function discriminantProperty(
  mapper: TypeMapping,
  name: string,
  discriminant: string,
  variants: readonly Variant[],
): MappedProperty {
  const symbols = variants.map((v) => v.type.getProperty(discriminant)!);
  const enumToken = token(`${name}${pascal(discriminant)}`);
  if (mapper.registry.types.has(enumToken))
    throw new Error(`${name}.${discriminant}: ${enumToken} is already defined`);
  const spec: EnumTypeSpec = {
    type: "string",
    enum: variants.map((v, i) => {
      const summary = docComment(symbols[i], mapper.checker).summary;
      return { value: v.value, ...(summary ? { description: summary } : {}) };
    }),
  };
  mapper.registry.define(enumToken, spec);
  const defaultText = symbols
    .map((s) => docComment(s, mapper.checker).defaultText)
    .find((d) => d !== undefined);
  const summary = `Selects the variant: ${quoted(variants.map((v) => v.value))}; the other properties say which they apply to.`;
  return {
    name: discriminant,
    doc: { documented: true },
    required: symbols.every((s) => !isOptional(s, mapper.checker)),
    spec: { $ref: typeRef(enumToken), plain: true, description: describe(summary, [], defaultText) },
  };
}

/** A non-discriminant property merged from the variants that declare it. */
function mergedProperty(
  mapper: TypeMapping,
  owner: string,
  property: string,
  discriminant: string,
  variants: readonly Variant[],
): MappedProperty | undefined {
  const holders = variants.filter((v) => v.type.getProperty(property));
  const symbols = holders.map((h) => h.type.getProperty(property)!);
  const requiredIn = holders.filter((_, i) => !isOptional(symbols[i], mapper.checker));
  const notes = appliesTo(discriminant, variants, holders, requiredIn);
  const mapped = symbols.map((symbol) => mapProperty(mapper, symbol, owner, notes));
  // the description of a variant that documents the property
  const kept = mapped.find((m) => m?.doc.documented) ?? mapped[0];
  if (!kept) return undefined;
  if (mapped.some((m) => !m || shape(m) !== shape(kept))) {
    throw new Error(
      `${owner}.${property}: the variants of the union give it different types; give them one type`,
    );
  }
  return { ...kept, required: holders.length === variants.length && requiredIn.length === holders.length };
}

/** The merged object type of the union `members` (the whole union type `whole`) met at `site`. */
export function mergedUnionType(
  mapper: TypeMapping,
  members: readonly ts.Type[],
  whole: ts.Type | undefined,
  site: Site,
): Mapped {
  const known = whole && mapper.registry.tokenOfType.get(whole);
  if (known) return { spec: { $ref: typeRef(known) }, notes: [] };
  const discriminant = discriminantOf(members, mapper.checker);
  if (!discriminant) {
    throw new Error(
      `${site.field}: a union of object types needs a discriminant (a property every variant declares with ` +
        `its own string literal, e.g. \`kind\`); found none`,
    );
  }
  const variants = members
    .map((type) => ({ type, value: literalOf(type, discriminant, mapper.checker)! }))
    .sort((a, b) => (a.value < b.value ? -1 : 1));
  const { name, symbol } = mapper.nameFor(whole, site);
  const unionToken = token(name);
  mapper.registry.define(unionToken, objectSpec([]), whole);
  const names = [...new Set(variants.flatMap((v) => v.type.getProperties().map((p) => p.name)))];
  const properties = [
    discriminantProperty(mapper, name, discriminant, variants),
    ...names
      .filter((n) => n !== discriminant)
      .map((n) => mergedProperty(mapper, name, n, discriminant, variants))
      .filter((p): p is MappedProperty => p !== undefined),
  ];
  const description = symbol ? describe(docComment(symbol, mapper.checker).summary, []) : undefined;
  recordDocs(mapper, name, properties);
  mapper.registry.define(unionToken, objectSpec(properties, description), whole);
  return { spec: { $ref: typeRef(unionToken) }, notes: [] };
}
