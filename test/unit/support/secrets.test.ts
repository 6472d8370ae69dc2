import {
  leakedSecrets,
  plaintextInExport,
  secretNeedles,
  secretsInConfig,
  secretsInExport,
  secretsOfStack,
} from "../../../devkit/engine/secrets";

/** A secret as `pulumi stack export --show-secrets` writes it: its value JSON-encoded. */
const exported = (value: unknown) => ({
  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
  plaintext: JSON.stringify(value),
});

const PEM = [
  "-----BEGIN PRIVATE KEY-----",
  "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
  "q8sR1pN0xT2mYdF4vKcZ9bH3jW6uE5aL0oGiQ7tPeSrXnVyMfBk",
  "-----END PRIVATE KEY-----",
].join("\n");

describe("the secrets of a stack, for leak checks", () => {
  test("every string inside every exported secret is found, nested values included; plain values are not", () => {
    const deployment = {
      resources: [
        { outputs: { privateKeyPem: exported(PEM), certPem: "-----BEGIN CERTIFICATE-----\nMIIBplain" } },
        {
          outputs: { data: exported({ token: "eyJhbGciOiJSUzI1NiJ9.abc", list: ["kubeconfig-contents-x"] }) },
        },
      ],
    };
    expect(secretsInExport(deployment).sort()).toEqual([
      PEM,
      "eyJhbGciOiJSUzI1NiJ9.abc",
      "kubeconfig-contents-x",
    ]);
  });

  test("what the stack holds in plaintext, secrets left out", () => {
    const plain = plaintextInExport({
      resources: [
        { outputs: { certPem: "-----BEGIN CERTIFICATE-----\nMIIBplainline\n", key: exported(PEM) } },
      ],
    });
    expect(plain).toEqual(["-----BEGIN CERTIFICATE-----\nMIIBplainline\n"]);
  });

  test("a stack's needles leave out what it holds in plaintext (a key line that is only public modulus); a plaintext private key is reported", () => {
    const publicLine = PEM.split("\n")[1];
    const stack = secretsOfStack(
      {
        resources: [
          { outputs: { privateKeyPem: exported(PEM), publicKeyOpenssh: `ssh-rsa AAAA${publicLine}xyz` } },
          { outputs: { stray: "-----BEGIN RSA PRIVATE KEY-----\nabc" } },
        ],
      },
      { "karmada:token": { value: "config-secret-token", secret: true } },
    );
    expect(stack.needles.sort()).toEqual([PEM, PEM.split("\n")[2], "config-secret-token"].sort());
    expect(stack.plaintextPrivateKeys).toEqual(["-----BEGIN RSA PRIVATE KEY-----\nabc"]);
  });

  test("config secrets are taken, plain config is not", () => {
    expect(
      secretsInConfig({
        "karmada:hostKubeconfig": { value: "apiVersion: v1 secret-kubeconfig", secret: true },
        "karmada:members": { objectValue: [{ kubeconfig: "member-secret-value" }], secret: true },
        "karmada:hostContext": { value: "prod-mgmt-context", secret: false },
      }).sort(),
    ).toEqual(["apiVersion: v1 secret-kubeconfig", "member-secret-value"]);
  });

  test("a PEM is looked for whole and line by line (its armour lines are no secret); short values are skipped", () => {
    expect(secretNeedles(PEM)).toEqual([PEM, PEM.split("\n")[1], PEM.split("\n")[2]]);
    expect(secretNeedles("true")).toEqual([]);
  });

  test("a leak of one line of a key is reported without printing the secret", () => {
    const needles = secretNeedles(PEM);
    const text = `summary\n${PEM.split("\n")[2]}\n`;
    const leaks = leakedSecrets(text, needles);
    expect(leaks).toEqual(["q8sR1p… (51 chars)"]);
    expect(leaks.join("")).not.toContain(PEM.split("\n")[2]);
    expect(leakedSecrets("nothing here", needles)).toEqual([]);
  });
});
