/**
 * Secret settings as a stack file holds them: `pulumi config set --secret` writes the ciphertext in
 * place of the value (`keyPem: { secure: v1:… }`), with `--path` for a field inside an object. The
 * program reads them decrypted, so the TypeScript types say `string`; the schema accepts both forms.
 */
import { SchemaNode, mapSchema } from "./walk";

/** Name of the encrypted-value schema under `definitions`. */
export const SECURE_VALUE_NAME = "secureValue";

/** What `pulumi config set --secret` writes in place of a value. */
export const SECURE_VALUE: SchemaNode = {
  description: "A value encrypted by `pulumi config set --secret`; the program reads it decrypted.",
  type: "object",
  properties: { secure: { type: "string", description: "The ciphertext (`v1:…`)." } },
  required: ["secure"],
  additionalProperties: false,
};

/**
 * Settings that hold credentials, by config path (a field of that name anywhere matches a one-segment
 * entry). Each must match a field: renaming one fails generation instead of silently dropping its
 * secret form.
 */
export const SECRET_FIELDS: readonly string[] = [
  "hostKubeconfig",
  // the whole map as one secret, or each member's kubeconfig (`--path 'karmada:memberKubeconfigs.<cluster>'`)
  "memberKubeconfigs",
  "memberKubeconfigs.*",
  "sshPrivateKey",
  // a machine's own SSH key (etcd hosts, control-plane machines)
  "privateKey",
  // the key of a CA brought for the PKI (Karmada, front-proxy, etcd)
  "keyPem",
  // an external etcd's client key
  "clientKeyPem",
];

const matches = (path: string, entry: string): boolean => path === entry || path.endsWith(`.${entry}`);

/** `node` or its encrypted form; what describes the field (description, default) stays outside. */
function secretForm(node: SchemaNode): SchemaNode {
  const { description, default: fallback, ...value } = node;
  return {
    ...(description === undefined ? {} : { description }),
    ...(fallback === undefined ? {} : { default: fallback }),
    anyOf: [value, { $ref: `#/definitions/${SECURE_VALUE_NAME}` }],
  };
}

/**
 * Every {@link SECRET_FIELDS} field of `schema` also accepting the encrypted form (a `$ref` to
 * `#/definitions/secureValue`, which the stack-file schema defines). Throws when an entry matches no field.
 */
export function acceptSecureValues(schema: SchemaNode): SchemaNode {
  const unmatched = new Set(SECRET_FIELDS);
  const result = mapSchema(schema, (node, path) => {
    const entry = SECRET_FIELDS.find((e) => matches(path, e));
    if (entry === undefined) return node;
    unmatched.delete(entry);
    return secretForm(node);
  });
  if (unmatched.size > 0) {
    throw new Error(
      `secret fields not found in the stack config types: ${[...unmatched].join(", ")} ` +
        "(renamed? update SECRET_FIELDS in scripts/config-schema/secrets.ts)",
    );
  }
  return result;
}
