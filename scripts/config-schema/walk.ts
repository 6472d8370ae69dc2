/**
 * Walking a JSON Schema (draft-07) by its subschemas only — never into `default`, `enum` or `const`
 * values — with each subschema's place given as the config path a user would write
 * (`controlPlane.hosts.machines[].privateKey`, `memberKubeconfigs.*`).
 */

/** One (sub)schema. */
export type SchemaNode = { [keyword: string]: unknown };

/** Keywords whose value is a map of name → subschema, and how a name extends the path. */
const NAMED_CHILDREN: Readonly<Record<string, (path: string, name: string) => string>> = {
  properties: (path, name) => (path ? `${path}.${name}` : name),
  patternProperties: (path, name) => `${path}[${name}]`,
  definitions: (_path, name) => `#${name}`,
};
/** Keywords whose value is one subschema, and the path of what it describes. */
const SINGLE_CHILD: Readonly<Record<string, (path: string) => string>> = {
  additionalProperties: (path) => (path ? `${path}.*` : "*"),
  items: (path) => `${path}[]`,
  not: (path) => path,
};
/** Keywords whose value is a list of alternatives describing the same value. */
const ALTERNATIVES = ["anyOf", "oneOf", "allOf"];

const isNode = (value: unknown): value is SchemaNode =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const mapValues = (record: SchemaNode, fn: (value: unknown, key: string) => unknown): SchemaNode =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value, key)]));

/**
 * A copy of `node` with `transform` applied to every subschema, children first (so `transform` sees
 * its children already transformed). `path` is the config path of `node`.
 */
export function mapSchema(
  node: SchemaNode,
  transform: (node: SchemaNode, path: string) => SchemaNode,
  path = "",
): SchemaNode {
  const recurse = (child: unknown, childPath: string) =>
    isNode(child) ? mapSchema(child, transform, childPath) : child;
  const mapped = mapValues(node, (value, keyword) => {
    if (keyword in NAMED_CHILDREN && isNode(value)) {
      return mapValues(value, (child, name) => recurse(child, NAMED_CHILDREN[keyword](path, name)));
    }
    if (keyword in SINGLE_CHILD) {
      const childPath = SINGLE_CHILD[keyword](path);
      return Array.isArray(value) ? value.map((item) => recurse(item, childPath)) : recurse(value, childPath);
    }
    if (ALTERNATIVES.includes(keyword) && Array.isArray(value)) return value.map((v) => recurse(v, path));
    return value;
  });
  return transform(mapped, path);
}

/** Calls `visit` on every subschema of `node` with its config path. */
export function walkSchema(node: SchemaNode, visit: (node: SchemaNode, path: string) => void): void {
  mapSchema(node, (child, path) => {
    visit(child, path);
    return child;
  });
}
