/**
 * Fields the stack program fills in from another key when a stack file leaves them out
 * (stacks/estate.ts): each host's `privateKey` comes from `karmada:sshPrivateKey`, so host lists stay
 * plain config. The component types require the field; a stack file may leave it out. The schema
 * does not then demand the other key: secrets are set apart from editing the file
 * (`pulumi config set --secret`, or the sandbox scripts), and the program names what is missing.
 */
import { STACK_CONFIG_NAMESPACE as CONFIG_NAMESPACE } from "../../stacks/config";
import { SchemaNode, mapSchema } from "./walk";

/** A required field of the objects at `path` (a config path) that the program fills from `from`. */
export interface FilledField {
  readonly path: string;
  readonly field: string;
  readonly from: string;
}

/** The fields stacks/estate.ts fills in (`withSshKeys`). */
export const FILLED_FIELDS: readonly FilledField[] = [
  { path: "etcd.hosts.hosts[]", field: "privateKey", from: "sshPrivateKey" },
  { path: "controlPlane.hosts.machines[]", field: "privateKey", from: "sshPrivateKey" },
];

/**
 * `schema` (of `StackConfig`) with each filled field optional, its description saying where it comes
 * from otherwise. Throws when a path or field is not found (a renamed field must not go unnoticed).
 */
export function relaxFilledFields(schema: SchemaNode): SchemaNode {
  const found = new Set<FilledField>();
  const result = mapSchema(schema, (node, path) => {
    const filled = FILLED_FIELDS.find((f) => f.path === path);
    const required = node.required as string[] | undefined;
    if (!filled || !required?.includes(filled.field)) return node;
    found.add(filled);
    const properties = node.properties as Record<string, SchemaNode>;
    const field = properties[filled.field];
    const note = `Required unless \`${CONFIG_NAMESPACE}:${filled.from}\` is set, which fills it in.`;
    return {
      ...node,
      required: required.filter((name) => name !== filled.field),
      properties: {
        ...properties,
        [filled.field]: {
          ...field,
          description: field.description ? `${field.description}\n\n${note}` : note,
        },
      },
    };
  });
  const missing = FILLED_FIELDS.filter((f) => !found.has(f));
  if (missing.length > 0) {
    throw new Error(
      `filled fields not found as required fields: ${missing.map((f) => `${f.path}.${f.field}`).join(", ")} ` +
        "(update FILLED_FIELDS in scripts/config-schema/filled-fields.ts)",
    );
  }
  return result;
}
