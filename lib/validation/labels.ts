import { isDns1123Subdomain } from "./dns";
import { ConfigError, show } from "./errors";
import { requireMap } from "./maps";

// k8s.io/apimachinery IsQualifiedName / IsValidLabelValue.
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const NAME_PART_MAX = 63;
/** Largest total size of a resource's annotations (keys + values), in bytes, as enforced by the API server. */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

const KEY_FORM =
  "[prefix/]name: prefix a DNS-1123 subdomain; name at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric";
const VALUE_FORM = "empty, or at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric";

/** Path of a map entry in error messages: `labels["app.kubernetes.io/name"]`. */
export const entryField = (field: string, key: string): string => `${field}[${JSON.stringify(key)}]`;

/**
 * Path of a keyed setting: `components.scheduler` for identifier keys, `components[""]` (as
 * {@link entryField}) for anything else, so the path always names the key that was given.
 */
export const keyField = (field: string, key: string): string =>
  /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${field}.${key}` : entryField(field, key);

/** True for a Kubernetes qualified name (`[prefix/]name`): label and annotation keys, resource names. */
export function isQualifiedName(value: string): boolean {
  const parts = value.split("/");
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  const prefixOk = parts.length === 1 || (parts[0].length > 0 && isDns1123Subdomain(parts[0]));
  return prefixOk && name.length <= NAME_PART_MAX && NAME_PART.test(name);
}

/** True for a valid label value (may be empty). */
export function isLabelValue(value: string): boolean {
  return value === "" || (value.length <= NAME_PART_MAX && NAME_PART.test(value));
}

/** Validates a label or annotation key; returns it. */
export function validateLabelKey(field: string, key: string): string {
  if (typeof key !== "string" || !isQualifiedName(key)) {
    throw new ConfigError(field, `${show(key)} is not a valid key`, KEY_FORM);
  }
  // valid for Kubernetes, but cdk8s cannot render a map holding a key such as `constructor`
  if (key in Object.prototype) {
    throw new ConfigError(
      field,
      `${show(key)} is a JavaScript object property name the manifest renderer cannot emit`,
      "any other key, e.g. with a prefix: example.com/" + key,
    );
  }
  return key;
}

/** Validates a label value; returns it. */
export function validateLabelValue(field: string, value: string): string {
  if (typeof value !== "string" || !isLabelValue(value)) {
    throw new ConfigError(field, `${show(value)} is not a valid label value`, VALUE_FORM);
  }
  return value;
}

/** Validates a map of labels (keys and values); returns it. */
export function validateLabels(
  field: string,
  labels: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  requireMap(field, labels, '{ "key": "value" }');
  for (const [key, value] of Object.entries(labels)) {
    validateLabelKey(entryField(field, key), key);
    validateLabelValue(entryField(field, key), value);
  }
  return labels;
}

/** Validates a map of annotations: keys like labels, string values, total size within the API limit. */
export function validateAnnotations(
  field: string,
  annotations: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  requireMap(field, annotations, '{ "key": "value" }');
  let bytes = 0;
  for (const [key, value] of Object.entries(annotations)) {
    validateLabelKey(entryField(field, key), key);
    if (typeof value !== "string") {
      throw new ConfigError(entryField(field, key), `${show(value)} is not a string`, "a string");
    }
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (bytes > ANNOTATIONS_MAX_BYTES) {
    throw new ConfigError(
      field,
      `annotations total ${bytes} bytes`,
      `at most ${ANNOTATIONS_MAX_BYTES} bytes`,
    );
  }
  return annotations;
}
