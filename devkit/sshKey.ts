import { generateKeyPairSync } from "node:crypto";

/**
 * A real, throw-away SSH private key (ed25519, PKCS#8 PEM — a form OpenSSH and the command provider
 * read) for tests that only need a key that parses: made per test process, never written anywhere.
 */
export const TEST_SSH_KEY: string = generateKeyPairSync("ed25519").privateKey.export({
  type: "pkcs8",
  format: "pem",
}) as string;
