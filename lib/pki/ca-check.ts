import { X509Certificate, createPrivateKey, createPublicKey, KeyObject } from "node:crypto";
import { ConfigError, check, show } from "../validation/errors";
import { KEY_USAGES, KeyUsage } from "./usages";

/**
 * Checks of a CA the user brings (`CaSource`) and of generated CAs' lifetimes, run before any resource is
 * registered: a CA that cannot sign, has expired or would expire before its leaves otherwise surfaces as a
 * tls provider error mid-update, or as clients rejecting the chain after it.
 */

/** What a supplied CA must do. */
export interface CaRequirement {
  /** The time leaves are issued (injected so that checks are reproducible). */
  readonly now: Date;
  /** Validity of the leaves it signs, in hours: the CA must outlive a leaf issued `now`. */
  readonly mustCoverHours: number;
  /** Which CA it stands in for, for messages, e.g. `karmada-ca` or `etcd-ca`. */
  readonly role: string;
}

/** Key algorithms the tls provider's `LocallySignedCert` signs with (its `privateKeyToAlgorithm`). */
const TLS_CA_KEY_ALGORITHMS = "RSA, ECDSA (P-224, P-256, P-384, P-521), Ed25519";

// Node's names of the curves Go's crypto/elliptic (and so the tls provider) supports.
const SUPPORTED_CURVES: Readonly<Record<string, string>> = {
  secp224r1: "P-224",
  prime256v1: "P-256",
  secp384r1: "P-384",
  secp521r1: "P-521",
};

// The PEM types the tls provider parses a private key from (terraform-provider-tls `keyParsers`).
const KEY_PEM_TYPES = ["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"];

const HOUR_MS = 3_600_000;

export interface PemBlock {
  readonly type: string;
  readonly headers: string;
  /** The whole block, BEGIN to END line. */
  readonly text: string;
}

/** Every complete PEM block, in order (text outside blocks is ignored, as Go's pem.Decode does). */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  const pattern = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const headers = /^((?:[A-Za-z-]+:.*\r?\n)+)\r?\n/.exec(m[2])?.[1] ?? "";
    blocks.push({ type: m[1], headers, text: m[0] });
  }
  return blocks;
}

// --- DER, for the one extension node does not expose ------------------------------------------------

/** A DER element: its tag and where its contents lie in the buffer. */
interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

function readTlv(der: Uint8Array, offset: number, limit: number): Tlv {
  if (offset + 2 > limit) throw new Error(`DER element at ${offset} is truncated`);
  const tag = der[offset];
  // certificates use only low tag numbers; a high one means the walker is lost
  if ((tag & 0x1f) === 0x1f) throw new Error(`DER element at ${offset} has a multi-byte tag`);
  let length = der[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    // indefinite lengths (0x80) are BER, not DER
    if (bytes === 0 || bytes > 4) throw new Error(`DER element at ${offset} has an unsupported length form`);
    if (start + bytes > limit) throw new Error(`DER element at ${offset} is truncated`);
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i];
    start += bytes;
  }
  if (start + length > limit) throw new Error(`DER element at ${offset} is truncated`);
  return { tag, start, end: start + length };
}

function childrenOf(der: Uint8Array, parent: Tlv): Tlv[] {
  const children: Tlv[] = [];
  for (let offset = parent.start; offset < parent.end;) {
    const child = readTlv(der, offset, parent.end);
    children.push(child);
    offset = child.end;
  }
  return children;
}

const SEQUENCE = 0x30;
const BOOLEAN = 0x01;
const INTEGER = 0x02;
const OID = 0x06;
const OCTET_STRING = 0x04;
const BIT_STRING = 0x03;
// [3] EXPLICIT, constructed: tbsCertificate's extensions
const EXTENSIONS_TAG = 0xa3;
// 2.5.29.15 id-ce-keyUsage, 2.5.29.19 id-ce-basicConstraints (contents octets)
const KEY_USAGE_OID = [0x55, 0x1d, 0x0f];
const BASIC_CONSTRAINTS_OID = [0x55, 0x1d, 0x13];

function need(tlv: Tlv | undefined, tag: number, what: string): Tlv {
  if (tlv === undefined) throw new Error(`${what} is missing`);
  if (tlv.tag !== tag)
    throw new Error(`${what} has tag 0x${tlv.tag.toString(16)}, expected 0x${tag.toString(16)}`);
  return tlv;
}

/** The DER value (inside extnValue's OCTET STRING) of a certificate's extension, or undefined. */
function extensionValue(der: Uint8Array, oid: readonly number[]): Tlv | undefined {
  const certificate = need(readTlv(der, 0, der.length), SEQUENCE, "Certificate");
  const tbs = need(childrenOf(der, certificate)[0], SEQUENCE, "tbsCertificate");
  const wrapper = childrenOf(der, tbs).find((t) => t.tag === EXTENSIONS_TAG);
  if (!wrapper) return undefined;
  const extensions = need(childrenOf(der, wrapper)[0], SEQUENCE, "Extensions");
  for (const extension of childrenOf(der, extensions)) {
    const parts = childrenOf(der, need(extension, SEQUENCE, "Extension"));
    const id = need(parts[0], OID, "extnID");
    if (id.end - id.start !== oid.length || !oid.every((b, i) => der[id.start + i] === b)) continue;
    // critical BOOLEAN DEFAULT FALSE is omitted when false
    const value = need(parts[1]?.tag === BOOLEAN ? parts[2] : parts[1], OCTET_STRING, "extnValue");
    return readTlv(der, value.start, value.end);
  }
  return undefined;
}

/**
 * The key usages of a DER certificate's keyUsage extension (RFC 5280 §4.2.1.3), by tls-provider name;
 * `undefined` when the certificate has no such extension. node's X509Certificate has no accessor for it
 * (its `keyUsage` is the extended key usage). Throws on DER it cannot walk.
 */
export function keyUsageOf(der: Uint8Array): KeyUsage[] | undefined {
  const value = extensionValue(der, KEY_USAGE_OID);
  if (!value) return undefined;
  const bits = need(value, BIT_STRING, "KeyUsage");
  if (bits.end <= bits.start) throw new Error("KeyUsage bit string is empty");
  const unused = der[bits.start];
  if (unused > 7) throw new Error(`KeyUsage bit string claims ${unused} unused bits`);
  const bytes = der.subarray(bits.start + 1, bits.end);
  const bitCount = bytes.length * 8 - (bytes.length > 0 ? unused : 0);
  // bit 0 (digitalSignature) is the most significant bit of the first byte; KEY_USAGES is in bit order
  return KEY_USAGES.filter((_, i) => i < bitCount && (bytes[i >> 3] & (0x80 >> (i & 7))) !== 0);
}

/**
 * Whether a DER certificate's basicConstraints extension (RFC 5280 §4.2.1.9) says CA:TRUE; `undefined`
 * without the extension. node's `X509Certificate.ca` cannot stand in: it is OpenSSL's X509_check_ca, which
 * is also false for a CA:TRUE certificate whose keyUsage lacks keyCertSign, so it cannot tell which is
 * wrong. Throws on DER it cannot walk.
 */
export function basicConstraintsCaOf(der: Uint8Array): boolean | undefined {
  const value = extensionValue(der, BASIC_CONSTRAINTS_OID);
  if (!value) return undefined;
  const [first] = childrenOf(der, need(value, SEQUENCE, "BasicConstraints"));
  // cA BOOLEAN DEFAULT FALSE: absent, or followed only by pathLenConstraint, means not a CA
  if (first === undefined || first.tag === INTEGER) return false;
  need(first, BOOLEAN, "cA");
  return first.end > first.start && der[first.start] !== 0;
}

// --- checks ------------------------------------------------------------------------------------------

/** One line naming a CA certificate for messages: its subject and validity. */
function describeCaCertificate(certificate: X509Certificate): string {
  const subject = certificate.subject.split("\n").join(", ");
  return `${show(subject)} (valid ${isoDate(certificate.validFrom)} to ${isoDate(certificate.validTo)})`;
}

function isoDate(openssl: string): string {
  return new Date(openssl).toISOString();
}

/**
 * Checks a CA the user brings: `certPem` holds exactly one certificate, a CA (basicConstraints CA:TRUE;
 * a v1 certificate has no extensions and so is refused) whose keyUsage, when present, includes keyCertSign (RFC 5280 makes the extension mandatory for CAs, but
 * Go's verifier, which every Karmada component uses, does not require it, and older CAs lack it; OpenSSL
 * clients do reject a keyUsage without keyCertSign), valid at `now` and still valid when a leaf issued now
 * for `mustCoverHours` expires. `keyPem`, when given, must be an unencrypted PEM private key the tls
 * provider reads (first PEM block RSA/EC/PKCS#8, algorithm {@link TLS_CA_KEY_ALGORITHMS}) whose public
 * key is the certificate's. Errors name `${field}.certPem` or `${field}.keyPem` and never quote the key.
 */
export function checkCaPem(
  field: string,
  ca: { readonly certPem: string; readonly keyPem?: string },
  requirement: CaRequirement,
): void {
  const certificate = checkCertificate(`${field}.certPem`, ca.certPem, requirement);
  if (ca.keyPem !== undefined) checkKey(`${field}.keyPem`, ca.keyPem, certificate);
}

function checkCertificate(field: string, certPem: unknown, requirement: CaRequirement): X509Certificate {
  const { now, mustCoverHours, role } = requirement;
  check(
    typeof certPem === "string",
    field,
    `${certPem === null ? "null" : typeof certPem} is not a PEM string`,
  );
  const blocks = pemBlocks(certPem);
  // A key pasted into the wrong field must not be echoed, and must not go out as a certificate.
  check(
    !blocks.some((b) => b.type.includes("PRIVATE KEY")),
    field,
    "holds a private key; the key belongs in keyPem",
    "exactly one PEM CERTIFICATE block",
  );
  const certificates = blocks.filter((b) => b.type === "CERTIFICATE");
  check(
    certificates.length > 0,
    field,
    `holds no PEM certificate${blocks.length > 0 ? ` (found ${blocks.map((b) => b.type).join(", ")})` : ""}`,
    "exactly one PEM CERTIFICATE block",
  );
  // The tls provider signs with the first block only; a chain here would be silently cut.
  check(
    certificates.length === 1,
    field,
    `holds ${certificates.length} certificates; give only the ${role} certificate, not a chain`,
    "exactly one PEM CERTIFICATE block",
  );
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificates[0].text);
  } catch (error) {
    throw new ConfigError(field, `is not a parseable X.509 certificate (${(error as Error).message})`);
  }
  const name = describeCaCertificate(certificate);
  let isCa: boolean | undefined;
  let usages: KeyUsage[] | undefined;
  try {
    isCa = basicConstraintsCaOf(certificate.raw);
    usages = keyUsageOf(certificate.raw);
  } catch (error) {
    throw new ConfigError(field, `${name} has an unreadable extension (${(error as Error).message})`);
  }
  check(
    isCa === true,
    field,
    `${name} is not a CA (no basicConstraints CA:TRUE), so it cannot serve as ${role}`,
    "a CA certificate",
  );
  check(
    usages === undefined || usages.includes("cert_signing"),
    field,
    `${name} has a keyUsage without keyCertSign (it has ${usages?.join(", ") || "none"}), so it cannot serve as ${role}`,
    "a CA whose keyUsage includes keyCertSign",
  );
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  check(
    notBefore.getTime() <= now.getTime(),
    field,
    `${name} is not valid yet: it starts ${notBefore.toISOString()}, now is ${now.toISOString()}`,
  );
  check(
    notAfter.getTime() >= now.getTime(),
    field,
    `${name} expired ${notAfter.toISOString()}, now is ${now.toISOString()}`,
  );
  const leafEnd = new Date(now.getTime() + mustCoverHours * HOUR_MS);
  if (notAfter.getTime() < leafEnd.getTime()) {
    const hoursLeft = Math.floor((notAfter.getTime() - now.getTime()) / HOUR_MS);
    throw new ConfigError(
      field,
      `${name} expires ${notAfter.toISOString()}, before a leaf it signs now for ${mustCoverHours}h (leafValidityHours) would: ${leafEnd.toISOString()}`,
      `leafValidityHours of at most ${hoursLeft}, or a CA valid until ${leafEnd.toISOString()} or later`,
    );
  }
  return certificate;
}

function checkKey(field: string, keyPem: unknown, certificate: X509Certificate): void {
  const form = `an unencrypted PEM private key (${KEY_PEM_TYPES.join(", ")}) first in the text`;
  check(
    typeof keyPem === "string",
    field,
    `${keyPem === null ? "null" : typeof keyPem} is not a PEM string`,
    form,
  );
  check(keyPem.trim() !== "", field, "is empty", form);
  // The tls provider decodes only the first PEM block (pem.Decode), so that is the one that counts.
  const [first] = pemBlocks(keyPem);
  check(first !== undefined, field, "holds no PEM block", form);
  const decrypt = "decrypt it first, e.g. openssl pkey -in ca.key -out ca-decrypted.key";
  check(
    first.type !== "ENCRYPTED PRIVATE KEY" && !/^Proc-Type:.*ENCRYPTED/m.test(first.headers),
    field,
    `is encrypted, and the tls provider cannot decrypt keys: ${decrypt}`,
    form,
  );
  if (!KEY_PEM_TYPES.includes(first.type)) {
    const hint =
      first.type === "EC PARAMETERS"
        ? "; drop the EC PARAMETERS block (openssl ecparam -genkey -noout does not write it)"
        : first.type === "OPENSSH PRIVATE KEY"
          ? "; convert it with ssh-keygen -p -m PEM -f <file>"
          : "";
    throw new ConfigError(
      field,
      `its first PEM block is ${first.type}, not a private key (the tls provider reads only the first block)${hint}`,
      form,
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(first.text);
  } catch {
    // node's message may quote the input; it is left out
    throw new ConfigError(
      field,
      `is a ${first.type} block that does not parse (truncated or corrupted)`,
      form,
    );
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const supported =
    key.asymmetricKeyType === "rsa" ||
    key.asymmetricKeyType === "ed25519" ||
    (key.asymmetricKeyType === "ec" && curve !== undefined && curve in SUPPORTED_CURVES);
  check(
    supported,
    field,
    `is an ${key.asymmetricKeyType ?? "unknown"}${curve ? ` ${curve}` : ""} key, which the tls provider cannot sign with`,
    TLS_CA_KEY_ALGORITHMS,
  );
  const spki = (k: KeyObject) => k.export({ type: "spki", format: "der" });
  check(
    spki(createPublicKey(key)).equals(spki(certificate.publicKey)),
    field,
    `does not belong to the certificate ${describeCaCertificate(certificate)} (their public keys differ)`,
    "the private key of certPem",
  );
}

/**
 * Checks the lifetimes of a generated CA and its leaves: a leaf must expire before its CA, or it would
 * outlive the chain that makes it trusted. `field` is the leaf setting's path (e.g. `leafValidityHours`);
 * each value is validated on its own elsewhere.
 */
export function checkValidityPair(field: string, caValidityHours: number, leafValidityHours: number): void {
  check(
    leafValidityHours < caValidityHours,
    field,
    `leaves valid ${show(leafValidityHours)}h would outlive their CA, valid ${show(caValidityHours)}h (caValidityHours)`,
    `fewer hours than caValidityHours (${show(caValidityHours)})`,
  );
}
