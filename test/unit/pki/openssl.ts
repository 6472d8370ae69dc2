import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CaSpec, CertSpec } from "../../../lib/pki/certificates";
import { AllowedUse, ExtendedKeyUsage, isKeyUsage, KeyUsage } from "../../../lib/pki/usages";
import { openssl as runOpenssl } from "../../../devkit/pki";

/**
 * Test helper: issues real certificates with the openssl CLI from the same `CertSpec`/`CaSpec` data the
 * tls resources get, mirroring what the tls provider does with them (Go's x509: critical basic
 * constraints and key usage, subject key id on CAs, authority key id on leaves).
 */

/** openssl's config name of each key usage. */
export const OPENSSL_KEY_USAGE: Readonly<Record<KeyUsage, string>> = {
  digital_signature: "digitalSignature",
  content_commitment: "nonRepudiation",
  key_encipherment: "keyEncipherment",
  data_encipherment: "dataEncipherment",
  key_agreement: "keyAgreement",
  cert_signing: "keyCertSign",
  crl_signing: "cRLSign",
  encipher_only: "encipherOnly",
  decipher_only: "decipherOnly",
};

/** How `openssl x509 -ext keyUsage` prints each key usage. */
const OPENSSL_KEY_USAGE_TEXT: Readonly<Record<KeyUsage, string>> = {
  digital_signature: "Digital Signature",
  content_commitment: "Non Repudiation",
  key_encipherment: "Key Encipherment",
  data_encipherment: "Data Encipherment",
  key_agreement: "Key Agreement",
  cert_signing: "Certificate Sign",
  crl_signing: "CRL Sign",
  encipher_only: "Encipher Only",
  decipher_only: "Decipher Only",
};

/** OID of each extended key usage (RFC 5280 §4.2.1.12 and vendor OIDs, as Go's crypto/x509 encodes them). */
const EXTENDED_KEY_USAGE_OID: Readonly<Record<ExtendedKeyUsage, string>> = {
  any_extended: "2.5.29.37.0",
  server_auth: "1.3.6.1.5.5.7.3.1",
  client_auth: "1.3.6.1.5.5.7.3.2",
  code_signing: "1.3.6.1.5.5.7.3.3",
  email_protection: "1.3.6.1.5.5.7.3.4",
  ipsec_end_system: "1.3.6.1.5.5.7.3.5",
  ipsec_tunnel: "1.3.6.1.5.5.7.3.6",
  ipsec_user: "1.3.6.1.5.5.7.3.7",
  timestamping: "1.3.6.1.5.5.7.3.8",
  ocsp_signing: "1.3.6.1.5.5.7.3.9",
  microsoft_server_gated_crypto: "1.3.6.1.4.1.311.10.3.3",
  netscape_server_gated_crypto: "2.16.840.1.113730.4.1",
  microsoft_commercial_code_signing: "1.3.6.1.4.1.311.2.1.22",
  microsoft_kernel_code_signing: "1.3.6.1.4.1.311.61.1.1",
};

/** Key usages of a spec's allowed uses. */
export const keyUsagesOf = (uses: readonly AllowedUse[]): KeyUsage[] => uses.filter(isKeyUsage);
/** Extended key usage OIDs of a spec's allowed uses. */
export const extendedKeyUsageOidsOf = (uses: readonly AllowedUse[]): string[] =>
  uses.filter((u): u is ExtendedKeyUsage => !isKeyUsage(u)).map((u) => EXTENDED_KEY_USAGE_OID[u]);

/** An openssl config with the subject (`[dn]`) and the extensions (`[ext]`) a spec calls for. */
function opensslConfig(spec: CertSpec | CaSpec, isCa: boolean): string {
  const organizations = "organizations" in spec ? spec.organizations : [];
  const dnsNames = "dnsNames" in spec ? spec.dnsNames : [];
  const ipAddresses = "ipAddresses" in spec ? spec.ipAddresses : [];
  const ekus = extendedKeyUsageOidsOf(spec.allowedUses);
  const lines = [
    "[req]",
    "distinguished_name = dn",
    "prompt = no",
    "[dn]",
    ...organizations.map((o, i) => `${i}.O = ${o}`),
    `CN = ${spec.commonName}`,
    "[ext]",
    `basicConstraints = critical, CA:${isCa ? "TRUE" : "FALSE"}`,
    `keyUsage = critical, ${keyUsagesOf(spec.allowedUses)
      .map((u) => OPENSSL_KEY_USAGE[u])
      .join(", ")}`,
    ...(ekus.length ? [`extendedKeyUsage = ${ekus.join(", ")}`] : []),
    isCa ? "subjectKeyIdentifier = hash" : "authorityKeyIdentifier = keyid",
    ...(dnsNames.length + ipAddresses.length ? ["subjectAltName = @alt", "[alt]"] : []),
    ...dnsNames.map((n, i) => `DNS.${i + 1} = ${n}`),
    ...ipAddresses.map((ip, i) => `IP.${i + 1} = ${ip}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** Paths of an issued certificate and its key. */
export interface IssuedFiles {
  readonly cert: string;
  readonly key: string;
}

const openssl = (args: string[]): string => runOpenssl(args);

// Days, because `openssl x509 -days` has no hours; the tables use whole days anyway.
const days = (hours: number): string => String(Math.ceil(hours / 24));

/** RSA 2048 keeps the test fast; key size does not affect what is checked (chains, usages, names). */
function newKey(path: string): void {
  openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path]);
}

/** Creates a self-signed CA from its spec in `dir`. */
export function createCa(dir: string, spec: CaSpec, validityHours: number): IssuedFiles {
  const base = join(dir, spec.id);
  const files = { cert: `${base}.crt`, key: `${base}.key` };
  writeFileSync(`${base}.cnf`, opensslConfig(spec, true));
  newKey(files.key);
  openssl([
    "req",
    "-x509",
    "-new",
    "-key",
    files.key,
    "-config",
    `${base}.cnf`,
    "-extensions",
    "ext",
    "-days",
    days(validityHours),
    "-out",
    files.cert,
  ]);
  return files;
}

/** Issues a leaf from its spec: key, CSR with the subject, signature by `ca` with the spec's extensions. */
export function issueLeaf(dir: string, spec: CertSpec, ca: IssuedFiles): IssuedFiles {
  const base = join(dir, spec.id);
  const files = { cert: `${base}.crt`, key: `${base}.key` };
  writeFileSync(`${base}.cnf`, opensslConfig(spec, false));
  newKey(files.key);
  openssl(["req", "-new", "-key", files.key, "-config", `${base}.cnf`, "-out", `${base}.csr`]);
  openssl([
    "x509",
    "-req",
    "-in",
    `${base}.csr`,
    "-CA",
    ca.cert,
    "-CAkey",
    ca.key,
    "-set_serial",
    `0x${Buffer.from(spec.id).toString("hex").slice(0, 30)}`,
    "-extfile",
    `${base}.cnf`,
    "-extensions",
    "ext",
    "-days",
    days(spec.validityHours),
    "-out",
    files.cert,
  ]);
  return files;
}

/** `openssl verify` of `cert` against the trust anchor `caCert`, optionally for a purpose. */
export function opensslVerify(
  cert: string,
  caCert: string,
  purpose?: "sslserver" | "sslclient",
): { ok: boolean; output: string } {
  const args = ["verify", "-x509_strict", "-CAfile", caCert, ...(purpose ? ["-purpose", purpose] : []), cert];
  try {
    return { ok: true, output: openssl(args) };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

/** Key usages as openssl reads them back from a certificate, mapped to tls-provider names. */
export function readKeyUsages(cert: string): KeyUsage[] {
  const text = openssl(["x509", "-noout", "-ext", "keyUsage", "-in", cert]);
  const printed = text
    .split("\n")
    .slice(1)
    .join(",")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const byText = new Map(Object.entries(OPENSSL_KEY_USAGE_TEXT).map(([use, t]) => [t, use as KeyUsage]));
  return printed.map((t) => {
    const use = byText.get(t);
    if (!use) throw new Error(`unexpected key usage ${t} in ${cert}`);
    return use;
  });
}
