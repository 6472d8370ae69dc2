import * as fc from "fast-check";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { basicConstraintsCaOf, checkCaPem, checkValidityPair, keyUsageOf } from "../../../lib/pki/ca-check";
import { KEY_USAGES } from "../../../lib/pki/usages";
import { generateCa, makeTestPki, openssl as runOpenssl } from "../../../devkit/pki";
import { configError } from "../validation/config-error";
import { OPENSSL_KEY_USAGE, readKeyUsages } from "./openssl";

const scratch = mkdtempSync(join(tmpdir(), "pk-ca-check-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const openssl = (args: string[]): string => runOpenssl(args, { cwd: scratch });

interface MadeCa {
  readonly certPem: string;
  readonly keyPem: string;
  readonly certFile: string;
  readonly keyFile: string;
}

let serial = 0;
/**
 * A self-signed certificate made by `openssl req -x509` for the variants the shared helpers cannot make:
 * `newkey` picks the algorithm, `ext` the extensions (openssl's default v3_ca section applies besides).
 */
function opensslCa(newkey: string[], ext: string[], days = 30): MadeCa {
  const base = join(scratch, `ca${serial++}`);
  const [certFile, keyFile] = [`${base}.crt`, `${base}.key`];
  openssl([
    "req",
    "-x509",
    ...newkey,
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-subj",
    `/CN=test-ca-${serial}/O=pulumi-karmada`,
    "-days",
    String(days),
    ...ext.flatMap((e) => ["-addext", e]),
  ]);
  return {
    certPem: readFileSync(certFile, "utf8"),
    keyPem: readFileSync(keyFile, "utf8"),
    certFile,
    keyFile,
  };
}

const CA_EXT = ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"];
const ED25519 = ["-newkey", "ed25519"];
const ec = (curve: string) => ["-newkey", "ec", "-pkeyopt", `ec_paramgen_curve:${curve}`];

/** The certificate's dates as openssl prints them (independent of node's parsing). */
function opensslDates(certFile: string): { notBefore: Date; notAfter: Date } {
  const out = openssl(["x509", "-noout", "-startdate", "-enddate", "-in", certFile]);
  const date = (name: string) => new Date(new RegExp(`${name}=(.*)`).exec(out)?.[1] ?? "invalid");
  return { notBefore: date("notBefore"), notAfter: date("notAfter") };
}

const HOUR = 3_600_000;
const requirement = (now = new Date(), mustCoverHours = 24) => ({ now, mustCoverHours, role: "karmada-ca" });

/** Every line of a PEM key; an error message must contain none of them. */
const keyLines = (pem: string) =>
  pem
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("-----"));
const expectNoKeyMaterial = (message: string, pem: string) => {
  for (const line of keyLines(pem)) expect(message).not.toContain(line);
};

// shared fixtures: an RSA CA with keyCertSign (PKCS#8 key) and an EC P-256 CA without keyUsage (SEC1 key)
const rsaCa = generateCa(join(scratch, "rsa"), "rsa-ca");
const rsaOtherCa = generateCa(join(scratch, "rsa-other"), "other-ca");
const ecPki = makeTestPki(join(scratch, "ec"), []);
const ecCaKey = readFileSync(join(ecPki.dir, "ca.key"), "utf8");

describe("keyUsageOf (DER walker for extension 2.5.29.15)", () => {
  it("reads back exactly the usages and CA flag openssl wrote, agreeing with OpenSSL's X509_check_ca", () => {
    const basicConstraints = fc.constantFrom(
      undefined,
      "critical,CA:TRUE",
      "CA:TRUE,pathlen:0",
      "critical,CA:FALSE",
    );
    fc.assert(
      fc.property(
        fc.option(fc.subarray([...KEY_USAGES], { minLength: 1 })),
        fc.boolean(),
        basicConstraints,
        (usages, critical, bc) => {
          const ext = [
            ...(usages === null
              ? []
              : [
                  `keyUsage=${critical ? "critical," : ""}${usages.map((u) => OPENSSL_KEY_USAGE[u]).join(",")}`,
                ]),
            // without basicConstraints here openssl's default v3_ca section adds CA:TRUE
            ...(bc === undefined ? [] : [`basicConstraints=${bc}`]),
          ];
          const ca = opensslCa(ED25519, ext);
          const certificate = new X509Certificate(ca.certPem);
          const read = keyUsageOf(certificate.raw);
          if (usages === null) {
            expect(read).toBeUndefined();
          } else {
            expect(read).toEqual(KEY_USAGES.filter((u) => usages.includes(u)));
            expect(read).toEqual(readKeyUsages(ca.certFile));
          }
          const isCa = basicConstraintsCaOf(certificate.raw);
          expect(isCa).toBe(bc === undefined || bc.includes("CA:TRUE"));
          // node's `ca` (X509_check_ca) is CA:TRUE and, if keyUsage is present, keyCertSign
          expect(certificate.ca).toBe(isCa === true && (read === undefined || read.includes("cert_signing")));
        },
      ),
      { numRuns: 20 },
    );
  });

  it("returns undefined without the extension, and reads long-form lengths (RSA)", () => {
    expect(keyUsageOf(new X509Certificate(ecPki.caCert).raw)).toBeUndefined();
    const rsa = new X509Certificate(rsaCa.certPem).raw;
    // the outer SEQUENCE of a 2048-bit RSA certificate needs a two-byte length
    expect(rsa[1]).toBe(0x82);
    expect(keyUsageOf(rsa)).toEqual(["digital_signature", "cert_signing", "crl_signing"]);
  });

  it("throws on every truncation, and only Errors on corrupted bytes", () => {
    const der = new X509Certificate(rsaCa.certPem).raw;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: der.length - 1 }), (length) => {
        expect(() => keyUsageOf(der.subarray(0, length))).toThrow(/truncated|tag/);
      }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: der.length - 1 }),
        fc.integer({ min: 0, max: 255 }),
        (at, byte) => {
          const copy = Buffer.from(der);
          copy[at] = byte;
          try {
            const read = keyUsageOf(copy);
            if (read !== undefined)
              expect(read.every((u) => (KEY_USAGES as readonly string[]).includes(u))).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
          }
        },
      ),
    );
  });

  it("rejects indefinite lengths (BER, not DER)", () => {
    expect(() => keyUsageOf(Uint8Array.from([0x30, 0x80, 0x00, 0x00]))).toThrow("unsupported length form");
  });
});

describe("checkCaPem: the certificate", () => {
  it("accepts the CAs the tls provider can sign with, with their keys", () => {
    const cas: MadeCa[] = [
      opensslCa(ED25519, CA_EXT),
      ...["P-224", "P-256", "P-384", "P-521"].map((c) => opensslCa(ec(c), CA_EXT)),
      opensslCa(["-newkey", "rsa:2048"], CA_EXT),
    ];
    for (const ca of [...cas, rsaCa]) checkCaPem("cas.karmada", ca, requirement());
    // no keyUsage extension at all (legacy CAs, openssl's default v3_ca) is accepted; SEC1 "EC PRIVATE KEY"
    checkCaPem("cas.etcd", { certPem: ecPki.caCert, keyPem: ecCaKey }, requirement());
    // PKCS#1 "RSA PRIVATE KEY"
    const pkcs1 = openssl(["rsa", "-in", join(scratch, "rsa", "ca.key"), "-traditional"]);
    expect(pkcs1).toContain("BEGIN RSA PRIVATE KEY");
    checkCaPem("cas.karmada", { certPem: rsaCa.certPem, keyPem: pkcs1 }, requirement());
    // trust only: no key
    checkCaPem("cas.karmada", { certPem: rsaCa.certPem }, requirement());
  });

  it("rejects a certificate that is not a CA", () => {
    const leaf = configError(() => checkCaPem("cas.etcd", { certPem: ecPki.clientCert }, requirement()));
    expect(leaf.field).toBe("cas.etcd.certPem");
    expect(leaf.problem).toMatch(/^"CN=pulumi-karmada-etcd-client" \(valid .* to .*\) is not a CA/);
    expect(leaf.problem).toContain("cannot serve as karmada-ca");
    const caFalse = opensslCa(ED25519, ["basicConstraints=critical,CA:FALSE"]);
    expect(configError(() => checkCaPem("c", caFalse, requirement())).problem).toContain(
      "is not a CA (no basicConstraints CA:TRUE)",
    );
  });

  it("rejects a CA whose keyUsage lacks keyCertSign, listing what it has", () => {
    const ca = opensslCa(ED25519, [
      "basicConstraints=critical,CA:TRUE",
      "keyUsage=critical,digitalSignature,cRLSign",
    ]);
    const error = configError(() => checkCaPem("cas.karmada", ca, requirement()));
    expect(error.field).toBe("cas.karmada.certPem");
    expect(error.problem).toContain(
      "has a keyUsage without keyCertSign (it has digital_signature, crl_signing)",
    );
    expect(error.allowed).toBe("a CA whose keyUsage includes keyCertSign");
  });

  it("holds it to its validity window and the leaves' lifetime", () => {
    const ca = opensslCa(ED25519, CA_EXT, 10);
    const { notBefore, notAfter } = opensslDates(ca.certFile);
    const lifetimeHours = (notAfter.getTime() - notBefore.getTime()) / HOUR;
    // at its start and with exactly its lifetime to cover, it passes
    checkCaPem("c", ca, requirement(notBefore, lifetimeHours));

    const early = configError(() =>
      checkCaPem("cas.front-proxy", ca, requirement(new Date(notBefore.getTime() - 1000))),
    );
    expect(early.field).toBe("cas.front-proxy.certPem");
    expect(early.problem).toContain(`is not valid yet: it starts ${notBefore.toISOString()}`);

    const late = new Date(notAfter.getTime() + 1000);
    expect(configError(() => checkCaPem("c", ca, requirement(late))).problem).toContain(
      `expired ${notAfter.toISOString()}, now is ${late.toISOString()}`,
    );

    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: lifetimeHours - 1 }),
        fc.integer({ min: 1, max: 100_000 }),
        (age, cover) => {
          const now = new Date(notBefore.getTime() + age * HOUR);
          const leafEnd = new Date(now.getTime() + cover * HOUR);
          if (leafEnd <= notAfter) {
            checkCaPem("c", ca, requirement(now, cover));
            return;
          }
          const error = configError(() => checkCaPem("c", ca, requirement(now, cover)));
          expect(error.problem).toContain(`expires ${notAfter.toISOString()}`);
          expect(error.problem).toContain(
            `for ${cover}h (leafValidityHours) would: ${leafEnd.toISOString()}`,
          );
          expect(error.allowed).toBe(
            `leafValidityHours of at most ${lifetimeHours - age}, or a CA valid until ${leafEnd.toISOString()} or later`,
          );
        },
      ),
    );
  });

  it("wants exactly one certificate, and never a key, in certPem", () => {
    const two = configError(() =>
      checkCaPem("cas.karmada", { certPem: rsaCa.certPem + rsaOtherCa.certPem }, requirement()),
    );
    expect(two.problem).toBe("holds 2 certificates; give only the karmada-ca certificate, not a chain");
    expect(configError(() => checkCaPem("c", { certPem: "" }, requirement())).problem).toBe(
      "holds no PEM certificate",
    );
    expect(
      configError(() => checkCaPem("c", { certPem: ecCaKey.replace(/EC PRIVATE/g, "PUBLIC") }, requirement()))
        .problem,
    ).toBe("holds no PEM certificate (found PUBLIC KEY)");
    const swapped = configError(() => checkCaPem("c", { certPem: rsaCa.keyPem }, requirement()));
    expect(swapped.problem).toBe("holds a private key; the key belongs in keyPem");
    expectNoKeyMaterial(swapped.message, rsaCa.keyPem);
    const certLines = rsaCa.certPem.trim().split("\n");
    const truncated = [...certLines.slice(0, certLines.length / 2), certLines[certLines.length - 1]].join(
      "\n",
    );
    expect(configError(() => checkCaPem("c", { certPem: truncated }, requirement())).problem).toMatch(
      /^is not a parseable X\.509 certificate \(.+\)$/,
    );
    expect(
      configError(() => checkCaPem("c", { certPem: 5 as unknown as string }, requirement())).problem,
    ).toBe("number is not a PEM string");
  });
});

describe("checkCaPem: the key", () => {
  const keyError = (keyPem: string, certPem = rsaCa.certPem) => {
    const error = configError(() => checkCaPem("cas.karmada", { certPem, keyPem }, requirement()));
    expect(error.field).toBe("cas.karmada.keyPem");
    expectNoKeyMaterial(error.message, keyPem);
    return error;
  };

  it("rejects another CA's key", () => {
    expect(keyError(rsaOtherCa.keyPem).problem).toMatch(
      /^does not belong to the certificate "CN=rsa-ca" .*\(their public keys differ\)$/,
    );
    // same algorithm family is not enough either
    expect(keyError(opensslCa(ec("P-256"), CA_EXT).keyPem, ecPki.caCert).problem).toContain(
      "their public keys differ",
    );
  });

  it("rejects encrypted keys (PKCS#8 and legacy Proc-Type), saying to decrypt them", () => {
    const pkcs8 = openssl([
      "pkey",
      "-in",
      join(scratch, "rsa", "ca.key"),
      "-aes256",
      "-passout",
      "pass:secret",
    ]);
    const legacy = openssl(["ec", "-in", join(ecPki.dir, "ca.key"), "-aes128", "-passout", "pass:secret"]);
    expect(pkcs8).toContain("ENCRYPTED PRIVATE KEY");
    expect(legacy).toContain("Proc-Type: 4,ENCRYPTED");
    expect(keyError(pkcs8).problem).toBe(
      "is encrypted, and the tls provider cannot decrypt keys: decrypt it first, e.g. openssl pkey -in ca.key -out ca-decrypted.key",
    );
    expect(keyError(legacy, ecPki.caCert).problem).toContain("is encrypted");
  });

  it("rejects algorithms the tls provider cannot sign with", () => {
    const cases: [string[], string][] = [
      [["-newkey", "ed448"], "is an ed448 key"],
      [ec("secp256k1"), "is an ec secp256k1 key"],
      [["-newkey", "rsa-pss", "-pkeyopt", "rsa_keygen_bits:2048"], "is an rsa-pss key"],
    ];
    for (const [newkey, problem] of cases) {
      const ca = opensslCa(newkey, CA_EXT);
      const error = keyError(ca.keyPem, ca.certPem);
      expect(error.problem).toBe(`${problem}, which the tls provider cannot sign with`);
      expect(error.allowed).toBe("RSA, ECDSA (P-224, P-256, P-384, P-521), Ed25519");
    }
  });

  it("reads only the first PEM block, as the tls provider does", () => {
    const withParams = openssl(["ecparam", "-name", "prime256v1", "-genkey"]);
    expect(withParams.indexOf("EC PARAMETERS")).toBeLessThan(withParams.indexOf("EC PRIVATE KEY"));
    expect(keyError(withParams).problem).toContain("its first PEM block is EC PARAMETERS, not a private key");
    expect(keyError(withParams).problem).toContain("openssl ecparam -genkey -noout");
    expect(keyError(rsaCa.certPem + rsaCa.keyPem).problem).toContain("its first PEM block is CERTIFICATE");
    // text around the block is fine
    checkCaPem("c", { certPem: rsaCa.certPem, keyPem: `# karmada CA key\n${rsaCa.keyPem}\n` }, requirement());
  });

  it("rejects empty, truncated and corrupted keys without quoting them", () => {
    expect(keyError("").problem).toBe("is empty");
    expect(keyError("  \n").problem).toBe("is empty");
    expect(keyError("just some text").problem).toBe("holds no PEM block");
    const lines = rsaCa.keyPem.trim().split("\n");
    const truncated = [...lines.slice(0, lines.length / 2), lines[lines.length - 1]].join("\n");
    expect(keyError(truncated).problem).toBe(
      "is a PRIVATE KEY block that does not parse (truncated or corrupted)",
    );
    const corrupted = rsaCa.keyPem.replace(/\n[A-Za-z0-9+/]{8}/, "\n!!!!!!!!");
    expect(keyError(corrupted).problem).toContain("does not parse");
  });
});

describe("checkValidityPair", () => {
  it("requires leaves to expire before their CA, naming the leaf setting", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), fc.integer({ min: 1, max: 200_000 }), (ca, leaf) => {
        if (leaf < ca) {
          checkValidityPair("leafValidityHours", ca, leaf);
          return;
        }
        const error = configError(() => checkValidityPair("leafValidityHours", ca, leaf));
        expect(error.field).toBe("leafValidityHours");
        expect(error.message).toBe(
          `invalid leafValidityHours: leaves valid ${leaf}h would outlive their CA, valid ${ca}h (caValidityHours) (allowed: fewer hours than caValidityHours (${ca}))`,
        );
      }),
    );
  });
});
