/**
 * The schema of a whole Pulumi stack file (`Pulumi.<env>.yaml`) around the schema of `StackConfig`:
 * each `StackConfig` field becomes the config key `karmada:<field>`; keys of other namespaces
 * (`kubernetes:context`, `pulumi:tags` …) are left to their owners; an unknown `karmada:` key is an
 * error (`parseStackConfig` refuses it), and so is a key without namespace (Pulumi files it under the
 * project's name, where the program never reads it).
 */
import { STACK_CONFIG_NAMESPACE as CONFIG_NAMESPACE } from "../../stacks/config";
import { SECURE_VALUE, SECURE_VALUE_NAME } from "./secrets";
import { SchemaNode } from "./walk";

/** A key of another namespace: `<namespace>:<key>` with any namespace but ours. */
const OTHER_NAMESPACE_KEY = `^(?!${CONFIG_NAMESPACE}:)[^:]+:.+$`;

/** The stack file schema around `config`, the schema generated from `StackConfig`. */
export function stackFileSchema(config: SchemaNode): SchemaNode {
  const properties = config.properties as Record<string, SchemaNode>;
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "Pulumi stack settings of pulumi-karmada (Pulumi.<env>.yaml)",
    description:
      "Generated from the StackConfig type in stacks/config.ts by scripts/config-schema.ts; do not edit.",
    type: "object",
    properties: {
      config: {
        description:
          `${config.description ?? ""}\n\n\`${CONFIG_NAMESPACE}:*\` keys are this program's settings; keys of other namespaces pass through.`.trim(),
        type: "object",
        properties: Object.fromEntries(
          Object.entries(properties).map(([key, schema]) => [`${CONFIG_NAMESPACE}:${key}`, schema]),
        ),
        patternProperties: { [OTHER_NAMESPACE_KEY]: {} },
        additionalProperties: false,
      },
      secretsprovider: { description: "Where the stack's secrets key comes from.", type: "string" },
      encryptedkey: {
        description: "The stack's data key, encrypted by the secrets provider.",
        type: "string",
      },
      encryptionsalt: { description: "Salt of the passphrase secrets provider.", type: "string" },
      environment: { description: "Pulumi ESC environments imported into this stack." },
    },
    definitions: { [SECURE_VALUE_NAME]: SECURE_VALUE },
  };
}
