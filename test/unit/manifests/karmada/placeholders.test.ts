import fc from "fast-check";
import { findPlaceholders, PLACEHOLDERS, substitute } from "../../../../lib/manifests/placeholders";

/** Stands in for a Pulumi Output: an opaque object that must be passed through untouched. */
class FakeOutput {
  constructor(readonly label: string) {}
}

const manifest = () => ({
  kind: "Thing",
  metadata: { name: "x", labels: { [PLACEHOLDERS.caBundle]: "key-is-not-a-field" } },
  spec: {
    caBundle: PLACEHOLDERS.caBundle,
    list: [1, true, null, "plain", { url: PLACEHOLDERS.apiServerUrl }],
  },
});

describe("substitute", () => {
  it("replaces a whole-string token by the very value given, keeping everything else", () => {
    const ca = new FakeOutput("ca");
    const url = new FakeOutput("url");
    const input = manifest();
    const out = substitute(input, { [PLACEHOLDERS.caBundle]: ca, [PLACEHOLDERS.apiServerUrl]: url }) as any;
    expect(out.spec.caBundle).toBe(ca);
    expect(out.spec.list[4].url).toBe(url);
    expect(out.spec.list.slice(0, 4)).toEqual([1, true, null, "plain"]);
    expect(out.metadata.labels).toEqual({ [PLACEHOLDERS.caBundle]: "key-is-not-a-field" });
    expect(input.spec.caBundle).toBe(PLACEHOLDERS.caBundle); // input left alone
  });

  it("hands text with embedded tokens to interpolate as ordered parts", () => {
    const text = `server: ${PLACEHOLDERS.apiServerUrl}\nca: ${PLACEHOLDERS.caBundle}\n`;
    const out = substitute(
      { data: { kubeconfig: text } },
      { [PLACEHOLDERS.apiServerUrl]: "https://k:5443", [PLACEHOLDERS.caBundle]: "Q0E=" },
      { interpolate: (parts) => parts.join("") },
    ) as any;
    expect(out.data.kubeconfig).toBe("server: https://k:5443\nca: Q0E=\n");
  });

  it("refuses embedded tokens without interpolate, naming the field", () => {
    expect(() =>
      substitute({ data: { kubeconfig: `x ${PLACEHOLDERS.caBundle}` } }, { [PLACEHOLDERS.caBundle]: "v" }),
    ).toThrow("placeholder embedded in text at data.kubeconfig needs options.interpolate");
  });

  it("refuses a token without a value, naming field and token", () => {
    expect(() => substitute(manifest(), { [PLACEHOLDERS.caBundle]: "v" })).toThrow(
      `no value given for placeholder ${PLACEHOLDERS.apiServerUrl} at spec.list[4].url`,
    );
  });

  it("refuses unknown token-shaped strings (typos)", () => {
    expect(() => substitute({ a: ["@@karmada:ca-bundel@@"] }, {})).toThrow(
      "unknown placeholder @@karmada:ca-bundel@@ at a[0]",
    );
  });

  const tokens = Object.values(PLACEHOLDERS);
  const text = fc.string().filter((s) => !s.includes("@@karmada:"));
  const token = fc.constantFrom(...tokens);
  const leaf = fc.oneof(
    text,
    token,
    fc.tuple(text, token, text).map((p) => p.join("")),
    fc.integer(),
    fc.boolean(),
  );
  const documents = fc.anything({ values: [leaf], maxDepth: 3 });
  const join = { interpolate: (parts: string[]) => parts.join("") };

  it("is the identity when every token maps to itself (property)", () => {
    const identity = Object.fromEntries(tokens.map((t) => [t, t]));
    fc.assert(fc.property(documents, (doc) => expect(substitute(doc, identity, join)).toEqual(doc)));
  });

  it("leaves no placeholder behind once every token has a value (property)", () => {
    const values = Object.fromEntries(tokens.map((t, i) => [t, `value-${i}`]));
    fc.assert(
      fc.property(documents, (doc) => expect(findPlaceholders(substitute(doc, values, join))).toEqual([])),
    );
  });
});

describe("findPlaceholders", () => {
  it("lists every occurrence with its path and whether it is the whole string", () => {
    const uses = findPlaceholders({ ...manifest(), text: `a ${PLACEHOLDERS.caCrt} b ${PLACEHOLDERS.caCrt}` });
    expect(uses).toEqual([
      { path: "spec.caBundle", token: PLACEHOLDERS.caBundle, whole: true },
      { path: "spec.list[4].url", token: PLACEHOLDERS.apiServerUrl, whole: true },
      { path: "text", token: PLACEHOLDERS.caCrt, whole: false },
      { path: "text", token: PLACEHOLDERS.caCrt, whole: false },
    ]);
  });

  it("finds nothing in plain data", () => {
    expect(findPlaceholders({ a: ["b", 1, { c: "@@ not a token" }] })).toEqual([]);
  });
});
