/**
 * Checks of TLS client credentials the user brings (an external etcd's CA, client certificate and key):
 * each part parses, the certificate is valid now, and the key is the certificate's. Errors name the
 * field and never quote a key.
 */
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { check, ConfigError } from "../validation/errors";
import { pemBlocks } from "./ca-check";

const CERTIFICATE_FORM = "PEM CERTIFICATE blocks";
const KEY_FORM = "an unencrypted PEM private key (RSA PRIVATE KEY, EC PRIVATE KEY or PRIVATE KEY)";

/** The first certificate of `pem`, checked to parse and to be valid at `now`. */
export function checkCertificatePem(field: string, pem: string, now: Date = new Date()): X509Certificate {
  const blocks = pemBlocks(pem);
  check(
    !blocks.some((b) => b.type.includes("PRIVATE KEY")),
    field,
    "holds a private key; a certificate belongs here",
    CERTIFICATE_FORM,
  );
  const certificates = blocks.filter((b) => b.type === "CERTIFICATE");
  check(certificates.length > 0, field, "holds no PEM certificate", CERTIFICATE_FORM);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificates[0].text);
  } catch (error) {
    throw new ConfigError(field, `is not a parseable X.509 certificate (${(error as Error).message})`);
  }
  const notAfter = new Date(certificate.validTo);
  check(
    notAfter.getTime() >= now.getTime(),
    field,
    `${certificate.subject.replace(/\n/g, ", ")} expired ${notAfter.toISOString()}`,
  );
  return certificate;
}

/** Checks that `keyPem` is an unencrypted private key whose public key is `certificate`'s. */
export function checkKeyOfCertificate(field: string, keyPem: string, certificate: X509Certificate): void {
  const [first] = pemBlocks(keyPem);
  check(first !== undefined, field, "holds no PEM block", KEY_FORM);
  check(
    first.type !== "ENCRYPTED PRIVATE KEY" && !/^Proc-Type:.*ENCRYPTED/m.test(first.headers),
    field,
    "is encrypted; decrypt it first (openssl pkey -in client.key -out client-decrypted.key)",
    KEY_FORM,
  );
  let publicDer: Buffer;
  try {
    publicDer = createPublicKey(createPrivateKey(first.text)).export({ type: "spki", format: "der" });
  } catch {
    // node's message may quote the input; it is left out
    throw new ConfigError(field, `is a ${first.type} block that does not parse as a private key`, KEY_FORM);
  }
  check(
    publicDer.equals(certificate.publicKey.export({ type: "spki", format: "der" })),
    field,
    "does not belong to the client certificate (their public keys differ)",
    "the private key of clientCertPem",
  );
}
