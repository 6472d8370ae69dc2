/**
 * Which properties are `secret: true` — one rule for inputs and outputs, nested or not: a property is
 * secret when its name ends in one of {@link SECRET_NAME_ENDINGS} (at a camelCase boundary, so `keyPem`,
 * `caKeyPem` and `clientKeyPem` match and `hostKey` does not), or when its description calls the value
 * a secret (the lower-case word; `Secret` the Kubernetes kind does not count).
 */

/** Name endings of values that are credentials. */
const SECRET_NAME_ENDINGS: readonly string[] = [
  "keyPem",
  "privateKey",
  "kubeconfig",
  "kubeconfigs",
  "token",
  "password",
  "passphrase",
];

/** Whether `name` is `ending` or ends in it as its last camelCase words (`caKeyPem` ends in `keyPem`). */
function endsWithWords(name: string, ending: string): boolean {
  if (name === ending) return true;
  const capitalized = ending[0].toUpperCase() + ending.slice(1);
  return name.endsWith(capitalized);
}

/** The rule: see the module comment. */
export function isSecretProperty(name: string, description: string | undefined): boolean {
  return (
    SECRET_NAME_ENDINGS.some((ending) => endsWithWords(name, ending)) || /\bsecret\b/.test(description ?? "")
  );
}
