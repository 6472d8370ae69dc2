/**
 * `@default` tags in this repository are either a value (`@default "IfNotPresent"`, `@default 22`) or
 * prose (`@default - the current context`, `@default 8760 (1 year)`). Editors insert a schema's
 * `default` on completion, so only values a user could write stay `default`; every default, value or
 * prose, is also shown at the end of the description, where hovering shows it.
 */
import { SchemaNode, mapSchema } from "./walk";

const jsonType = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value;

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** JSDoc cannot hold `*` followed by `/`, so comments write `*\/`; a schema shows what was meant. */
const unescapeJsDoc = (text: string): string => text.replace(/\*\\\//g, "*/");

/** Prose: "- none", "the first host", "8589934592 (8 GiB)"; values such as "/var/lib/etcd" have no space. */
const isProse = (value: unknown): value is string =>
  typeof value === "string" && (/\s/.test(value) || value.startsWith("-"));

/** Whether `value` is a value the field `node` accepts (not prose about one). */
export function isLiteralDefault(value: unknown, node: SchemaNode): boolean {
  if (isProse(value)) return false;
  if (Array.isArray(node.enum)) return node.enum.some((allowed) => sameJson(allowed, value));
  if ("const" in node) return sameJson(node.const, value);
  if (node.type !== undefined) {
    const types = [node.type].flat() as string[];
    return types.includes(jsonType(value)) || (types.includes("integer") && Number.isInteger(value));
  }
  if (Array.isArray(node.anyOf)) return node.anyOf.some((alt) => isLiteralDefault(value, alt as SchemaNode));
  return true;
}

/** How a default reads in a description: prose as written, a value as JSON. */
export function describeDefault(value: unknown): string {
  return isProse(value) ? unescapeJsDoc(value.replace(/^-\s*/, "")) : JSON.stringify(value);
}

/** One field: the default appended to its description, and kept as `default` only when a value. */
export function documentDefault(node: SchemaNode): SchemaNode {
  const description = typeof node.description === "string" ? unescapeJsDoc(node.description) : undefined;
  if (!("default" in node)) return description === undefined ? node : { ...node, description };
  const { default: value, ...rest } = node;
  const shown = `Default: ${describeDefault(value)}`;
  return {
    ...rest,
    description: description ? `${description}\n\n${shown}` : shown,
    ...(isLiteralDefault(value, rest) ? { default: value } : {}),
  };
}

/** {@link documentDefault} on every field of `schema`. */
export const documentDefaults = (schema: SchemaNode): SchemaNode => mapSchema(schema, documentDefault);
