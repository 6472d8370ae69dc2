import fc from "fast-check";
import { REDACTED, Redactor } from "../../../console/server/redact";

const KEY =
  "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx0123456789abcdefghij\nQWERTYUIOPASDFGHJKL0123456789\n-----END RSA PRIVATE KEY-----";

describe("redaction", () => {
  it("replaces known secrets in every form: as is, base64, JSON-escaped, line by line", () => {
    const redactor = new Redactor().add("s3cr3t-value", KEY);
    expect(redactor.text("token s3cr3t-value here")).toBe(`token ${REDACTED} here`);
    expect(redactor.text(Buffer.from(KEY).toString("base64"))).toBe(REDACTED);
    expect(redactor.text(JSON.stringify({ key: KEY }))).toBe(`{"key":"${REDACTED}"}`);
    expect(redactor.text("line: MIIEowIBAAKCAQEAx0123456789abcdefghij")).toBe(`line: ${REDACTED}`);
  });

  it("replaces credential shapes nobody declared", () => {
    const redactor = new Redactor();
    expect(redactor.text(`a key ${KEY} ends`)).toBe(`a key ${REDACTED} ends`);
    expect(redactor.text("    token: eyJhbGciOiJSUzI1NiJ9.abc")).toBe(`    token: ${REDACTED}`);
    expect(redactor.text('"client-key-data": "LS0tLS1CRUdJTiBFQyBQUklWQVRF"')).toBe(
      `"client-key-data": "${REDACTED}"`,
    );
    // short values and ordinary words stay
    expect(redactor.text("token: abc, tokens: 3")).toBe("token: abc, tokens: 3");
  });

  it("walks JSON values, leaving their shape", () => {
    const redactor = new Redactor().add({ nested: ["s3cr3t-value"] });
    expect(redactor.value({ a: ["x s3cr3t-value", 1, true, null], b: { c: "s3cr3t-value" } })).toEqual({
      a: [`x ${REDACTED}`, 1, true, null],
      b: { c: REDACTED },
    });
  });

  it("never leaves a known secret in any text, wherever it is put", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9+/=_-]{6,40}$/),
        fc.string(),
        fc.string(),
        (secret, before, after) => {
          const out = new Redactor().add(secret).text(`${before}${secret}${after}`);
          expect(out).not.toContain(secret);
        },
      ),
      { numRuns: 300 },
    );
  });
});
