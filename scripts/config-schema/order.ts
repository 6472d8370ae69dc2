/**
 * One key order for the whole schema, so that generating twice gives the same bytes and a diff of
 * the committed file shows only real changes: schema keywords in a fixed, readable order (what a field
 * is before what it holds), field names sorted.
 */
import { SchemaNode, mapSchema } from "./walk";

/** Keywords in the order they are written; any other keyword follows, sorted. */
const KEYWORD_ORDER = [
  "$schema",
  "$id",
  "$ref",
  "title",
  "description",
  "type",
  "const",
  "enum",
  "default",
  "required",
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "definitions",
];
/** Keywords whose keys are names (of fields, patterns, definitions), sorted alphabetically. */
const NAME_MAPS = ["properties", "patternProperties", "definitions"];

const rank = (keyword: string): number => {
  const index = KEYWORD_ORDER.indexOf(keyword);
  return index === -1 ? KEYWORD_ORDER.length : index;
};

const byKey = (entries: [string, unknown][], compare: (a: string, b: string) => number) =>
  Object.fromEntries([...entries].sort(([a], [b]) => compare(a, b)));

const alphabetical = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `node`'s keywords in {@link KEYWORD_ORDER}, and the names inside name maps sorted. */
export function orderKeywords(node: SchemaNode): SchemaNode {
  const entries = Object.entries(node).map(([keyword, value]): [string, unknown] => [
    keyword,
    NAME_MAPS.includes(keyword) && typeof value === "object" && value !== null
      ? byKey(Object.entries(value), alphabetical)
      : value,
  ]);
  return byKey(entries, (a, b) => rank(a) - rank(b) || alphabetical(a, b));
}

/** {@link orderKeywords} on every subschema. */
export const canonicalOrder = (schema: SchemaNode): SchemaNode => mapSchema(schema, orderKeywords);
