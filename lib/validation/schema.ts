/**
 * Checks a plain value against a JSON Schema of the subset `ts-json-schema-generator` writes for the
 * stack config (type, properties, required, additionalProperties, items, enum, const, anyOf, $ref):
 * the program refuses a misspelt key or a wrong type anywhere in a setting, naming the field, instead
 * of ignoring it or failing later. Messages name fields and allowed values, never the value itself
 * (a setting may hold a secret).
 */
import { ConfigError } from "./errors";

/** The JSON Schema keywords this checker reads; other keywords (description, default …) are ignored. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  /** `false`: no other keys; a schema: what every other key's value must be. @default - any */
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  /** `#/definitions/<name>` only. */
  readonly $ref?: string;
  readonly default?: unknown;
}

/** Named schemas `$ref` points at (`#/definitions/<name>`). */
export type SchemaDefinitions = Readonly<Record<string, JsonSchema>>;

const childField = (field: string, key: string | number): string =>
  typeof key === "number" ? `${field}[${key}]` : `${field}.${key}`;

/** JSON Schema's name for a value's type (`integer` counts as `number`, as the generator writes it). */
function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const TYPE_WORDS: Record<string, string> = {
  object: "a map",
  array: "a list",
  string: "a string",
  number: "a number",
  boolean: "true or false",
  null: "null",
};

const listed = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(", ");

function resolveRef(schema: JsonSchema, definitions: SchemaDefinitions): JsonSchema {
  if (schema.$ref === undefined) return schema;
  const name = schema.$ref.replace(/^#\/definitions\//, "");
  const target = definitions[name];
  if (!target) throw new Error(`schema bug: ${schema.$ref} is not among the definitions`);
  return resolveRef(target, definitions);
}

/** The `const` each branch of a union requires of `key` (a discriminator such as `kind`), if all do. */
function discriminator(
  branches: readonly JsonSchema[],
  definitions: SchemaDefinitions,
): { key: string; values: unknown[] } | undefined {
  const resolved = branches.map((b) => resolveRef(b, definitions));
  const first = resolved[0]?.properties ?? {};
  for (const key of Object.keys(first)) {
    const values = resolved.map((b) => b.properties?.[key]?.const ?? b.properties?.[key]?.enum?.[0]);
    if (values.every((v) => v !== undefined) && new Set(values).size === values.length)
      return { key, values };
  }
  return undefined;
}

/**
 * Every way `value` breaks `schema`, each a ConfigError naming the field (`field` is the value's own
 * path, e.g. `karmada:etcd`). Empty when the value fits.
 */
export function schemaErrors(
  value: unknown,
  schema: JsonSchema,
  field: string,
  definitions: SchemaDefinitions = {},
): ConfigError[] {
  const s = resolveRef(schema, definitions);
  if (s.anyOf) return unionErrors(value, s.anyOf, field, definitions);
  const actual = typeOf(value);
  if (s.type !== undefined) {
    const types = typeof s.type === "string" ? [s.type] : s.type;
    const fits = types.includes(actual) || (actual === "number" && types.includes("integer"));
    if (!fits) {
      return [
        new ConfigError(
          field,
          `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(" or ")}, got ${TYPE_WORDS[actual]}`,
        ),
      ];
    }
  }
  if (s.const !== undefined && value !== s.const) {
    return [new ConfigError(field, "has a value this form does not take", JSON.stringify(s.const))];
  }
  if (s.enum !== undefined && !s.enum.includes(value)) {
    return [new ConfigError(field, "is not one of the allowed values", listed(s.enum))];
  }
  if (actual === "array" && s.items) {
    return (value as unknown[]).flatMap((item, i) =>
      schemaErrors(item, s.items!, childField(field, i), definitions),
    );
  }
  if (actual === "object" && (s.properties || s.additionalProperties !== undefined || s.required)) {
    return objectErrors(value as Record<string, unknown>, s, field, definitions);
  }
  return [];
}

function objectErrors(
  value: Record<string, unknown>,
  s: JsonSchema,
  field: string,
  definitions: SchemaDefinitions,
): ConfigError[] {
  const properties = s.properties ?? {};
  const errors: ConfigError[] = [];
  for (const key of s.required ?? []) {
    if (value[key] === undefined) errors.push(new ConfigError(childField(field, key), "is required"));
  }
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const known = properties[key];
    if (known) {
      errors.push(...schemaErrors(item, known, childField(field, key), definitions));
    } else if (s.additionalProperties === false) {
      errors.push(
        new ConfigError(
          childField(field, key),
          "is not a setting here (misspelt?)",
          Object.keys(properties).join(", ") || "no keys",
        ),
      );
    } else if (typeof s.additionalProperties === "object") {
      errors.push(...schemaErrors(item, s.additionalProperties, childField(field, key), definitions));
    }
  }
  return errors;
}

/**
 * A union's errors: none when a branch fits. Otherwise those of the branch the value meant — the one its
 * discriminator (`kind: …`) names, else the only branch of its type — so a typo inside one form is
 * reported as that, not as "matches no form".
 */
function unionErrors(
  value: unknown,
  branches: readonly JsonSchema[],
  field: string,
  definitions: SchemaDefinitions,
): ConfigError[] {
  const results = branches.map((b) => schemaErrors(value, b, field, definitions));
  if (results.some((r) => r.length === 0)) return [];
  const tag = discriminator(branches, definitions);
  if (tag && typeOf(value) === "object") {
    const given = (value as Record<string, unknown>)[tag.key];
    // an omitted discriminator means the form whose discriminator has a default
    const chosen =
      given === undefined
        ? branches.findIndex((b) => resolveRef(b, definitions).properties?.[tag.key]?.default !== undefined)
        : tag.values.findIndex((v) => v === given);
    if (chosen >= 0) return results[chosen];
    const problem = given === undefined ? "is required" : "is not one of the allowed values";
    return [new ConfigError(childField(field, tag.key), problem, listed(tag.values))];
  }
  const sameType = branches
    .map((b, i) => ({ schema: resolveRef(b, definitions), errors: results[i] }))
    .filter(({ schema }) => schema.type === undefined || [schema.type].flat().includes(typeOf(value)));
  if (sameType.length === 1) return sameType[0].errors;
  if (sameType.length === 0) {
    const types = [...new Set(branches.flatMap((b) => [resolveRef(b, definitions).type ?? []].flat()))];
    // a secret's `{ secure: … }` form exists only in the stack file; the program sees its plain text
    const words = types.filter((t) => t !== "object" || types.length === 1).map((t) => TYPE_WORDS[t] ?? t);
    return [new ConfigError(field, `must be ${words.join(" or ")}, got ${TYPE_WORDS[typeOf(value)]}`)];
  }
  // several forms of its type, none fits: the one with the fewest problems is the likeliest meant
  return sameType.reduce((best, b) => (b.errors.length < best.errors.length ? b : best)).errors;
}
