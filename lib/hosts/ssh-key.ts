import { createPrivateKey, KeyObject } from "node:crypto";
import { ConfigError, check } from "../validation/errors";

/**
 * Early checks of the SSH private key handed to @pulumi/command's remote connection, which parses it with
 * Go's golang.org/x/crypto/ssh (`ParsePrivateKey`, or `ParsePrivateKeyWithPassphrase` when
 * `privateKeyPassword` is set). A key it cannot read otherwise fails only when the first remote command
 * runs, halfway through an update. No message quotes any part of the value: it is a secret.
 */

const ALLOWED =
  "the contents of an OpenSSH or PEM (RSA, EC, PKCS#8) private key: RSA, ECDSA P-256/P-384/P-521 or Ed25519";

const ENCRYPTED = "is encrypted; give its passphrase (privateKeyPassword) or a decrypted key";
const UNEXPECTED_PASSPHRASE =
  "is not encrypted, but a passphrase (privateKeyPassword) is given, and the SSH client then refuses the key; drop the passphrase";
const GARBLED = "is truncated or garbled";

// x/crypto/ssh's passphraseProtectedOpenSSHKey: bcrypt KDF with one of these ciphers.
const OPENSSH_CIPHERS = ["aes256-ctr", "aes256-cbc"];

// Key types x/crypto/ssh reads from an OpenSSH private key, with the number of SSH strings/mpints that
// follow the type name before the comment (parseOpenSSHPrivateKey).
const OPENSSH_KEY_FIELDS: Readonly<Record<string, number>> = {
  "ssh-ed25519": 2, // public, private (seed + public)
  "ssh-rsa": 6, // n, e, d, iqmp, p, q
  "ecdsa-sha2-nistp256": 3, // curve, public point, private scalar
  "ecdsa-sha2-nistp384": 3,
  "ecdsa-sha2-nistp521": 3,
};

// ssh.NewSignerFromKey takes ECDSA keys on these curves only.
const SSH_CURVES = ["prime256v1", "secp384r1", "secp521r1"];

/**
 * Validates the contents of an SSH private key (`field` names it, e.g. `hosts.machines[0].privateKey`) and
 * its optional passphrase, as the SSH client of @pulumi/command will read them: OpenSSH format (`-----BEGIN
 * OPENSSH PRIVATE KEY-----`, structure checked down to its padding; an encrypted one needs a passphrase,
 * which cannot be verified here: node has no bcrypt KDF) or PEM (`RSA PRIVATE KEY`, `EC PRIVATE KEY`,
 * `PRIVATE KEY`; a legacy `Proc-Type: 4,ENCRYPTED` one is decrypted with the passphrase to prove it).
 * Refused with a message saying what was given instead: a path, a public key, an SSH or X.509
 * certificate, a PuTTY key, an encrypted PKCS#8 key (the client cannot decrypt those), a passphrase for an
 * unencrypted key (the client refuses that combination), DSA keys, and truncated or garbled keys.
 */
export function validateSshPrivateKey(field: string, key: string, passphrase?: string): void {
  const fail = (problem: string) => new ConfigError(field, problem, ALLOWED);
  check(
    typeof key === "string",
    field,
    `is not a string (got ${key === null ? "null" : typeof key})`,
    ALLOWED,
  );
  const text = key.replace(/\r\n/g, "\n").trim();
  check(text !== "", field, "is empty", ALLOWED);
  if (!text.includes("\n") && /^(~|\.{1,2})?\/|^[A-Za-z]:[\\/]/.test(text)) {
    throw fail("is a path; pass the key's contents, e.g. fs.readFileSync(path, 'utf8')");
  }
  if (text.startsWith("PuTTY-User-Key-File-")) {
    throw fail(
      "is a PuTTY .ppk key; convert it to OpenSSH format: puttygen key.ppk -O private-openssh -o key",
    );
  }
  const publicLine = /^(?:[\w@.-]+\s+)?(ssh-[\w@.-]+|ecdsa-sha2-[\w@.-]+|sk-[\w@.-]+)\s+AAAA/.exec(text);
  if (publicLine) {
    if (publicLine[1].includes("-cert-v01@openssh.com")) {
      throw fail("is an OpenSSH certificate (a -cert.pub file); pass the private key it certifies");
    }
    throw fail("is an OpenSSH public key (a .pub file); pass the private key, the file without .pub");
  }
  if (/^---- BEGIN SSH2 PUBLIC KEY ----/m.test(text)) {
    throw fail("is an SSH2 (RFC 4716) public key; pass the private key");
  }
  if (/^---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----/m.test(text)) {
    throw fail(
      "is an ssh.com (SSH2) private key; convert it to OpenSSH format: ssh-keygen -i -f key > key.openssh",
    );
  }
  if (!text.includes("\n") && text.includes("\\n")) {
    throw fail("has literal \\n sequences instead of line breaks");
  }
  // x/crypto/ssh reads the first PEM block (pem.Decode), skipping any text before it.
  const begin = /^-----BEGIN ([A-Z0-9 ]+)-----$/m.exec(text);
  if (!begin) throw fail("is not a private key (no -----BEGIN … PRIVATE KEY----- line)");
  const type = begin[1];
  if (type === "PUBLIC KEY" || type === "RSA PUBLIC KEY") {
    throw fail("is a PEM public key; pass the private key");
  }
  if (/CERTIFICATE|X509|CRL/.test(type)) throw fail(`is a PEM ${type}, not a private key`);
  if (!type.endsWith("PRIVATE KEY")) throw fail(`is a PEM ${type} block, not a private key`);
  const rest = text.slice(begin.index + begin[0].length);
  const endAt = rest.indexOf(`\n-----END ${type}-----`);
  if (endAt < 0) throw fail(`${GARBLED} (its END line is missing)`);
  const inner = rest.slice(0, endAt);
  const headers = /^\n((?:[A-Za-z-]+:.*\n)+)\n/.exec(inner)?.[1] ?? "";
  const body = inner.slice(headers === "" ? 0 : headers.length + 2).replace(/\s+/g, "");
  if (body === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) {
    throw fail(`${GARBLED} (its body is not base64)`);
  }
  if (type === "OPENSSH PRIVATE KEY") {
    checkOpenSsh(Buffer.from(body, "base64"), passphrase, fail);
    return;
  }
  checkPem(
    text.slice(begin.index, begin.index + begin[0].length + endAt + `\n-----END ${type}-----`.length),
    {
      type,
      encrypted: /^Proc-Type:.*ENCRYPTED/m.test(headers),
      passphrase,
      fail,
    },
  );
}

function checkPem(
  block: string,
  options: { type: string; encrypted: boolean; passphrase?: string; fail: (problem: string) => ConfigError },
): void {
  const { type, encrypted, passphrase, fail } = options;
  if (type === "ENCRYPTED PRIVATE KEY") {
    // x/crypto/ssh decrypts only legacy Proc-Type PEM (x509.DecryptPEMBlock), never PKCS#8 encryption.
    throw fail(
      "is an encrypted PKCS#8 key, which the SSH client cannot decrypt even with its passphrase; rewrite it in OpenSSH format (ssh-keygen -p -f key) or decrypt it (openssl pkey -in key -out key.decrypted)",
    );
  }
  if (!["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "DSA PRIVATE KEY"].includes(type)) {
    throw fail(`is a PEM ${type}, which the SSH client does not read`);
  }
  let parsed: KeyObject;
  if (encrypted) {
    if (passphrase === undefined) throw fail(ENCRYPTED);
    try {
      parsed = createPrivateKey({ key: block, format: "pem", passphrase });
    } catch {
      throw fail("cannot be decrypted with the given passphrase (privateKeyPassword), or is garbled");
    }
  } else {
    // ParsePrivateKeyWithPassphrase answers "not an encrypted key" for a plain PEM key.
    if (passphrase !== undefined) throw fail(UNEXPECTED_PASSPHRASE);
    try {
      parsed = createPrivateKey({ key: block, format: "pem" });
    } catch {
      // node's message may quote the input; it is left out
      throw fail(`${GARBLED} (its PEM body does not parse)`);
    }
  }
  checkAlgorithm(parsed, fail);
}

function checkAlgorithm(key: KeyObject, fail: (problem: string) => ConfigError): void {
  const kind = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (kind === "dsa") throw fail("is a DSA key, which OpenSSH disabled in 7.0 and removed in 9.8");
  if (kind === "rsa") {
    // OpenSSH servers refuse shorter RSA keys (RequiredRSASize, default 1024 since 9.1)
    if ((details.modulusLength ?? 0) < 1024)
      throw fail(`is an RSA key of ${details.modulusLength} bits, under 1024`);
    return;
  }
  if (kind === "ed25519") return;
  if (kind === "ec" && SSH_CURVES.includes(details.namedCurve ?? "")) return;
  throw fail(`is an ${kind}${details.namedCurve ? ` ${details.namedCurve}` : ""} key, which SSH cannot use`);
}

/** Sequential reads of the SSH wire encoding (RFC 4251 §5); running past the end means a cut key. */
class SshReader {
  private offset = 0;
  constructor(
    private readonly data: Buffer,
    private readonly fail: (problem: string) => ConfigError,
  ) {}

  uint32(): number {
    if (this.offset + 4 > this.data.length) throw this.fail(GARBLED);
    const value = this.data.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  /** An SSH `string` (also `mpint`): uint32 length, then that many bytes. */
  bytes(): Buffer {
    const length = this.uint32();
    if (this.offset + length > this.data.length) throw this.fail(GARBLED);
    const value = this.data.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  text(): string {
    return this.bytes().toString("latin1");
  }

  remaining(): Buffer {
    return this.data.subarray(this.offset);
  }
}

const OPENSSH_MAGIC = Buffer.from("openssh-key-v1\0", "latin1");

/** The layout of PROTOCOL.key in OpenSSH, as x/crypto/ssh's parseOpenSSHPrivateKey reads it. */
function checkOpenSsh(
  data: Buffer,
  passphrase: string | undefined,
  fail: (problem: string) => ConfigError,
): void {
  if (!data.subarray(0, OPENSSH_MAGIC.length).equals(OPENSSH_MAGIC)) {
    throw fail(`${GARBLED} (no openssh-key-v1 header)`);
  }
  const outer = new SshReader(data.subarray(OPENSSH_MAGIC.length), fail);
  const cipher = outer.text();
  const kdf = outer.text();
  const kdfOptions = outer.bytes();
  const keyCount = outer.uint32();
  outer.bytes(); // the public key
  const privateBlock = outer.bytes();
  if (keyCount !== 1) throw fail(`holds ${keyCount} keys; the SSH client reads single-key files only`);
  if (cipher !== "none") {
    if (passphrase === undefined) throw fail(ENCRYPTED);
    // The passphrase itself needs bcrypt_pbkdf to check, which node:crypto lacks; the client reports a
    // wrong one at connect time.
    if (kdf !== "bcrypt" || !OPENSSH_CIPHERS.includes(cipher)) {
      throw fail(
        `is encrypted with a cipher or KDF the SSH client cannot decrypt (it takes bcrypt with ${OPENSSH_CIPHERS.join(" or ")}); re-encrypt it: ssh-keygen -p -Z aes256-ctr -f key`,
      );
    }
    if (outer.remaining().length > 0) throw fail(`${GARBLED} (data after the key)`);
    if (privateBlock.length % 16 !== 0) throw fail(`${GARBLED} (the encrypted part is not whole AES blocks)`);
    return;
  }
  if (kdf !== "none" || kdfOptions.length !== 0) throw fail(`${GARBLED} (a KDF without a cipher)`);
  if (outer.remaining().length > 0) throw fail(`${GARBLED} (data after the key)`);
  if (passphrase !== undefined) throw fail(UNEXPECTED_PASSPHRASE);
  const inner = new SshReader(privateBlock, fail);
  if (inner.uint32() !== inner.uint32()) throw fail(`${GARBLED} (its check bytes differ)`);
  const keyType = inner.text();
  const fields = OPENSSH_KEY_FIELDS[keyType];
  if (fields === undefined) {
    // a type name is not key material, but garbage in its place is not shown
    const name = /^[\w@.-]{1,64}$/.test(keyType) ? `of type ${keyType}` : "of an unreadable type";
    throw fail(
      `is a key ${name}, which the SSH client cannot use (it takes ${Object.keys(OPENSSH_KEY_FIELDS).join(", ")})`,
    );
  }
  for (let i = 0; i < fields; i++) inner.bytes();
  inner.text(); // comment
  const padding = inner.remaining();
  if (!padding.every((b, i) => b === i + 1)) throw fail(`${GARBLED} (its padding is wrong)`);
}
