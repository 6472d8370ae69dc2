/**
 * Type tokens. Every named TypeScript interface or alias keeps its name (`karmada:index:CaSource`), but
 * for a trailing `Args`, which SDKs append to input types themselves (`EtcdHostsArgs` → `EtcdHosts`, not
 * Python's `EtcdHostsArgsArgs`); an anonymous object or literal union is named after where it appears:
 * `<Owner><Property>` (the owning component, or the object type holding the property), e.g.
 * `EtcdClusterInCluster`.
 */

/** Package and module of every token (`karmada:index:<Name>`). */
export const PACKAGE_NAME = "karmada";
const MODULE_NAME = "index";

/** `karmada:index:<name>`. */
export const token = (name: string): string => `${PACKAGE_NAME}:${MODULE_NAME}:${name}`;

/** The name part of a token. */
export const tokenName = (typeToken: string): string => typeToken.split(":")[2];

/** The schema name of a declared TypeScript type: its name without a trailing `Args`. */
export const declaredTypeName = (name: string): string => name.replace(/(.)Args$/, "$1");

/** `apiServer` → `ApiServer`. */
export const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The name of an anonymous type found at `property` of `owner`. */
export const anonymousName = (owner: string, property: string): string => `${owner}${pascal(property)}`;

/** Names TypeScript gives anonymous types, and utility aliases that describe no type of their own. */
const NOT_NAMES = new Set([
  "__type",
  "__object",
  "Partial",
  "Readonly",
  "Required",
  "Record",
  "Pick",
  "Omit",
  "Input",
  "Output",
]);

/** Whether `name` names a declared type (rather than an anonymous or utility-derived one). */
export const isDeclaredName = (name: string | undefined): name is string =>
  name !== undefined && !NOT_NAMES.has(name);

/** A key usable as a property of an object type in every SDK (`apiServer`, not `karmada-apiserver`). */
export const isIdentifierKey = (key: string): boolean => /^[a-z][A-Za-z0-9]*$/.test(key);
