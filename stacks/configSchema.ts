/**
 * The program's own check of every `karmada:*` setting against the stack-file schema editors use
 * (schemas/stack-config.schema.json, generated from {@link StackConfig}): a misspelt key or a wrong type
 * at any depth is refused before anything registers, naming the field, instead of being ignored (a
 * typo silently falling back to a default) or surfacing later as some resource's failure.
 */
import stackFileSchema from "../schemas/stack-config.schema.json";
import { ConfigError } from "../lib/validation/errors";
import { JsonSchema, SchemaDefinitions, schemaErrors } from "../lib/validation/schema";
import type { StackConfig } from "./config";

/** The stack-file schema's parts this check reads. */
interface StackFileSchema {
  readonly properties: { readonly config: { readonly properties: Readonly<Record<string, JsonSchema>> } };
  readonly definitions: SchemaDefinitions;
}

/** The definition of a value `pulumi config set --secret` encrypted: it exists only in the stack file. */
const SECURE_VALUE_REF = "#/definitions/secureValue";

/**
 * `schema` as the program sees values: the engine hands it a secret's plain text, so a union of a string
 * and the stack file's `{ secure: … }` form is just the string.
 */
function programSchema(schema: JsonSchema): JsonSchema {
  const mapValues = (record: Readonly<Record<string, JsonSchema>>) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k, programSchema(v)]));
  const branches = schema.anyOf?.filter((b) => b.$ref !== SECURE_VALUE_REF).map(programSchema);
  if (branches?.length === 1 && schema.anyOf!.length === 2) return branches[0];
  return {
    ...schema,
    ...(branches ? { anyOf: branches } : {}),
    ...(schema.properties ? { properties: mapValues(schema.properties) } : {}),
    ...(schema.items ? { items: programSchema(schema.items) } : {}),
    ...(typeof schema.additionalProperties === "object"
      ? { additionalProperties: programSchema(schema.additionalProperties) }
      : {}),
  };
}

const schemaFile = stackFileSchema as unknown as StackFileSchema;
const KEY_SCHEMAS: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  Object.entries(schemaFile.properties.config.properties).map(([key, schema]) => [
    key.replace(/^karmada:/, ""),
    programSchema(schema),
  ]),
);

/** Whether a setting's schema takes a string only (its config text is the value, never JSON). */
const takesString = (schema: JsonSchema) => schema.type === "string";

/**
 * The value of a `karmada:<key>` setting as the engine hands it over (config text: a string, or JSON of
 * a map or list) in the form its schema describes. A string setting whose text is a JSON map or list
 * was written as one in the stack file (`hostContext: { name: … }`), unless it is a secret, whose text
 * is taken as is (a kubeconfig may be JSON). Text that should be JSON and is not stays a string, which
 * the schema then refuses as the wrong type.
 */
export function settingValue(key: keyof StackConfig, text: string, secret: boolean): unknown {
  const schema = KEY_SCHEMAS[key];
  if (schema && takesString(schema) && (secret || !/^\s*[[{]/.test(text))) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Every way the given settings (`key` → value in the form {@link settingValue} gives) break the schema,
 * each naming its field (`karmada:etcd.inCluster.replica`). Keys the schema does not know are left to
 * parseStackConfig, which lists the allowed ones.
 */
export function stackSchemaErrors(settings: Readonly<Record<string, unknown>>): ConfigError[] {
  return Object.entries(settings).flatMap(([key, value]) => {
    const schema = KEY_SCHEMAS[key];
    return schema && value !== undefined
      ? schemaErrors(value, schema, `karmada:${key}`, schemaFile.definitions)
      : [];
  });
}
