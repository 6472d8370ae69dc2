import * as fc from "fast-check";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateSshPrivateKey } from "../../../lib/hosts/ssh-key";
import { generateCa } from "../../../devkit/pki";
import { configError } from "../validation/config-error";

const scratch = mkdtempSync(join(tmpdir(), "pk-ssh-key-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let count = 0;
/** A key made by ssh-keygen (`args` after `-N <passphrase>`); its private and public files' contents. */
function sshKeygen(args: string[], passphrase = ""): { key: string; pub: string; file: string } {
  const file = join(scratch, `key${count++}`);
  execFileSync("ssh-keygen", ["-q", "-N", passphrase, "-C", "test@pulumi-karmada", ...args, "-f", file], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { key: readFileSync(file, "utf8"), pub: readFileSync(`${file}.pub`, "utf8"), file };
}

const FIELD = "hosts.machines[0].privateKey";

/**
 * Lines shorter than this are not checked for in messages: the last line of a truncated key can be two or
 * three base64 characters, which occur in any text (e.g. "4/" in "P-384/P-521") and reveal nothing.
 */
const MIN_QUOTED_LINE = 8;

/** The ConfigError for `key`, checked to name the field and to quote no line of the key. */
function rejection(key: string, passphrase?: string) {
  const error = configError(() => validateSshPrivateKey(FIELD, key, passphrase));
  expect(error.field).toBe(FIELD);
  for (const line of key.split("\n").map((l) => l.trim())) {
    if (line.length >= MIN_QUOTED_LINE) expect(error.message).not.toContain(line);
  }
  if (passphrase) expect(error.message).not.toContain(passphrase);
  return error;
}

const ENCRYPTED = "is encrypted; give its passphrase (privateKeyPassword) or a decrypted key";
const UNEXPECTED =
  "is not encrypted, but a passphrase (privateKeyPassword) is given, and the SSH client then refuses the key; drop the passphrase";

const ed25519 = sshKeygen(["-t", "ed25519"]);
const rsa = sshKeygen(["-t", "rsa", "-b", "2048"]);

describe("validateSshPrivateKey: keys the SSH client reads", () => {
  it("accepts unencrypted OpenSSH and PEM keys of every supported algorithm", () => {
    const keys = [
      ed25519.key,
      rsa.key,
      ...["256", "384", "521"].map((b) => sshKeygen(["-t", "ecdsa", "-b", b]).key),
      sshKeygen(["-t", "rsa", "-b", "2048", "-m", "PEM"]).key,
      sshKeygen(["-t", "ecdsa", "-m", "PEM"]).key,
      sshKeygen(["-t", "rsa", "-b", "2048", "-m", "PKCS8"]).key,
      sshKeygen(["-t", "ed25519", "-m", "PKCS8"]).key,
    ];
    expect(keys.map((k) => /-----BEGIN ([A-Z ]+)-----/.exec(k)?.[1])).toEqual([
      ...Array(5).fill("OPENSSH PRIVATE KEY"),
      "RSA PRIVATE KEY",
      "EC PRIVATE KEY",
      "PRIVATE KEY",
      "OPENSSH PRIVATE KEY", // ssh-keygen writes ed25519 in OpenSSH format whatever -m says
    ]);
    for (const key of keys) {
      validateSshPrivateKey(FIELD, key);
      // Windows line endings and surrounding blank lines are fine
      validateSshPrivateKey(FIELD, `\n${key.replace(/\n/g, "\r\n")}\n`);
    }
  });

  it("accepts encrypted keys given a passphrase, and refuses them without one", () => {
    const openssh = sshKeygen(["-t", "ed25519"], "secret");
    const pem = sshKeygen(["-t", "rsa", "-b", "2048", "-m", "PEM"], "secret");
    expect(pem.key).toContain("Proc-Type: 4,ENCRYPTED");
    for (const { key } of [openssh, pem]) {
      validateSshPrivateKey(FIELD, key, "secret");
      expect(rejection(key).problem).toBe(ENCRYPTED);
    }
    // a legacy PEM key is decrypted to prove the passphrase; OpenSSH's bcrypt KDF is not in node:crypto
    expect(rejection(pem.key, "wrong").problem).toBe(
      "cannot be decrypted with the given passphrase (privateKeyPassword), or is garbled",
    );
  });

  it("refuses a passphrase for an unencrypted key, as the SSH client does", () => {
    for (const key of [ed25519.key, sshKeygen(["-t", "rsa", "-b", "2048", "-m", "PEM"]).key]) {
      expect(rejection(key, "secret").problem).toBe(UNEXPECTED);
      expect(rejection(key, "").problem).toBe(UNEXPECTED);
    }
  });

  it("refuses encrypted PKCS#8, which the SSH client cannot decrypt at all", () => {
    const { key } = sshKeygen(["-t", "rsa", "-b", "2048", "-m", "PKCS8"], "secret");
    expect(key).toContain("BEGIN ENCRYPTED PRIVATE KEY");
    for (const passphrase of [undefined, "secret"]) {
      expect(rejection(key, passphrase).problem).toMatch(
        /^is an encrypted PKCS#8 key, which the SSH client cannot decrypt even with its passphrase; rewrite it in OpenSSH format \(ssh-keygen -p -f key\)/,
      );
    }
  });

  it("refuses OpenSSH ciphers the SSH client cannot decrypt", () => {
    const { key } = sshKeygen(["-t", "ed25519", "-Z", "chacha20-poly1305@openssh.com"], "secret");
    expect(rejection(key, "secret").problem).toContain(
      "is encrypted with a cipher or KDF the SSH client cannot decrypt",
    );
    expect(rejection(key).problem).toBe(ENCRYPTED);
  });
});

describe("validateSshPrivateKey: what was given instead", () => {
  it("says a path is a path", () => {
    for (const path of [
      "/home/me/.ssh/id_ed25519",
      "~/.ssh/id_rsa",
      "./deploy.key",
      "C:\\Users\\me\\.ssh\\id_rsa",
    ]) {
      expect(rejection(path).problem).toBe(
        "is a path; pass the key's contents, e.g. fs.readFileSync(path, 'utf8')",
      );
    }
  });

  it("says a public key or certificate is not the private key", () => {
    expect(rejection(ed25519.pub).problem).toBe(
      "is an OpenSSH public key (a .pub file); pass the private key, the file without .pub",
    );
    expect(rejection(sshKeygen(["-t", "ecdsa"]).pub).problem).toContain("is an OpenSSH public key");
    const pem = execFileSync("ssh-keygen", ["-e", "-m", "PKCS8", "-f", `${rsa.file}.pub`], {
      encoding: "utf8",
    });
    expect(rejection(pem).problem).toBe("is a PEM public key; pass the private key");
    const rfc4716 = execFileSync("ssh-keygen", ["-e", "-f", `${ed25519.file}.pub`], { encoding: "utf8" });
    expect(rejection(rfc4716).problem).toBe("is an SSH2 (RFC 4716) public key; pass the private key");
    // an OpenSSH certificate: the public key signed by a CA key
    execFileSync("ssh-keygen", ["-q", "-s", rsa.file, "-I", "test", `${ed25519.file}.pub`], {
      stdio: "ignore",
    });
    const certificate = readFileSync(`${ed25519.file}-cert.pub`, "utf8");
    expect(rejection(certificate).problem).toBe(
      "is an OpenSSH certificate (a -cert.pub file); pass the private key it certifies",
    );
    const x509 = generateCa(join(scratch, "x509"), "not-ssh");
    expect(rejection(x509.certPem).problem).toBe("is a PEM CERTIFICATE, not a private key");
  });

  it("says a PuTTY key needs converting", () => {
    const ppk = [
      "PuTTY-User-Key-File-3: ssh-ed25519",
      "Encryption: none",
      "Comment: me@laptop",
      "Public-Lines: 2",
      "AAAAC3NzaC1lZDI1NTE5AAAAIFaK2Cq7Ju1pM5gG0r6E4mJdXQX1wQ6xK2p5X2Yk",
      "Private-Lines: 1",
      "AAAAIBn6yO8d0Ywq5CzS2n1j6sZp0eL2G6f3vV0mY7bQ8XcP",
    ].join("\n");
    expect(rejection(ppk).problem).toBe(
      "is a PuTTY .ppk key; convert it to OpenSSH format: puttygen key.ppk -O private-openssh -o key",
    );
  });

  it("says empty, non-string and one-line keys are not keys", () => {
    expect(rejection("").problem).toBe("is empty");
    expect(rejection(" \n\t ").problem).toBe("is empty");
    expect(configError(() => validateSshPrivateKey(FIELD, undefined as unknown as string)).problem).toBe(
      "is not a string (got undefined)",
    );
    expect(rejection(ed25519.key.replace(/\n/g, "\\n")).problem).toBe(
      "has literal \\n sequences instead of line breaks",
    );
    expect(rejection("hunter2").problem).toBe("is not a private key (no -----BEGIN … PRIVATE KEY----- line)");
  });
});

describe("validateSshPrivateKey: damaged keys", () => {
  const body = (key: string) =>
    key
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith("-----"))
      .join("");
  const pemOf = (type: string, b64: string) =>
    `-----BEGIN ${type}-----\n${b64.match(/.{1,70}/g)?.join("\n") ?? ""}\n-----END ${type}-----\n`;

  it("rejects every truncation of an OpenSSH key's contents", () => {
    for (const key of [ed25519.key, rsa.key]) {
      const bytes = Buffer.from(body(key), "base64");
      fc.assert(
        fc.property(fc.integer({ min: 0, max: bytes.length - 1 }), (length) => {
          const cut = pemOf("OPENSSH PRIVATE KEY", bytes.subarray(0, length).toString("base64"));
          expect(rejection(cut).problem).toMatch(/^is truncated or garbled/);
        }),
      );
    }
  });

  it("rejects cut lines, a missing END line, and non-base64 bodies", () => {
    for (const key of [ed25519.key, rsa.key, sshKeygen(["-t", "rsa", "-b", "2048", "-m", "PEM"]).key]) {
      const lines = key.trim().split("\n");
      const halved = [...lines.slice(0, Math.ceil(lines.length / 2)), lines[lines.length - 1]].join("\n");
      expect(rejection(halved).problem).toMatch(/^is truncated or garbled/);
      expect(rejection(lines.slice(0, -1).join("\n")).problem).toBe(
        "is truncated or garbled (its END line is missing)",
      );
      const garbled = key.replace(/\n([A-Za-z0-9+/]{4})/, "\n!@#$");
      expect(rejection(garbled).problem).toBe("is truncated or garbled (its body is not base64)");
    }
  });

  it("rejects wrong magic, check bytes, key type and padding in an OpenSSH key", () => {
    const bytes = Buffer.from(body(ed25519.key), "base64");
    const magic = Buffer.from(bytes);
    magic[0] ^= 0xff;
    expect(rejection(pemOf("OPENSSH PRIVATE KEY", magic.toString("base64"))).problem).toBe(
      "is truncated or garbled (no openssh-key-v1 header)",
    );
    // the private block is the last SSH string: check ints, then the key, comment and padding 1, 2, 3 …
    const start = findPrivateBlock(bytes);
    const privateLength = bytes.readUInt32BE(start - 4);
    expect(start + privateLength).toBe(bytes.length);
    const check = Buffer.from(bytes);
    check[start] ^= 0x01;
    expect(rejection(pemOf("OPENSSH PRIVATE KEY", check.toString("base64"))).problem).toBe(
      "is truncated or garbled (its check bytes differ)",
    );
    // the key type is the string after the two check ints
    const typed = Buffer.from(bytes);
    expect(typed.toString("latin1", start + 12, start + 23)).toBe("ssh-ed25519");
    typed.write("ssh-xyz4567", start + 12, "latin1");
    expect(rejection(pemOf("OPENSSH PRIVATE KEY", typed.toString("base64"))).problem).toBe(
      "is a key of type ssh-xyz4567, which the SSH client cannot use (it takes ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521)",
    );
    const padding = Buffer.from(bytes);
    padding[bytes.length - 1] ^= 0x40;
    expect(rejection(pemOf("OPENSSH PRIVATE KEY", padding.toString("base64"))).problem).toBe(
      "is truncated or garbled (its padding is wrong)",
    );
  });
});

/**
 * Offset of the private block of an unencrypted OpenSSH key, walked independently of the code under test:
 * magic, then ciphername, kdfname, kdfoptions (strings), key count (uint32), public key (string), and the
 * private block's length.
 */
function findPrivateBlock(bytes: Buffer): number {
  let offset = "openssh-key-v1\0".length;
  const skipString = () => {
    offset += 4 + bytes.readUInt32BE(offset);
  };
  skipString();
  skipString();
  skipString();
  offset += 4;
  skipString();
  return offset + 4;
}
