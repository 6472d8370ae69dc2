import fc from "fast-check";
import { parseAllDocuments } from "yaml";
import {
  CERTIFICATES_CHECKSUM_ANNOTATION,
  findPlaceholders,
  PLACEHOLDER_FIELDS,
  PLACEHOLDERS,
  substitute,
} from "../../../../lib/manifests/placeholders";
import { synthesizeEstate } from "../../../../lib/manifests/synth";

/** Stands in for a Pulumi Output: an opaque object that must be passed through untouched. */
class FakeOutput {
  constructor(readonly label: string) {}
}

/** A webhook configuration and an APIService as the library writes them, plus a user's strings. */
const manifest = () => ({
  kind: "Thing",
  metadata: { name: "x", labels: { [PLACEHOLDERS.caBundle]: "key-is-not-a-field" } },
  webhooks: [{ name: "a", clientConfig: { caBundle: PLACEHOLDERS.caBundle } }],
  spec: {
    caBundle: PLACEHOLDERS.caBundle,
    list: [1, true, null, "plain"],
    template: { metadata: { annotations: { [CERTIFICATES_CHECKSUM_ANNOTATION]: PLACEHOLDERS.caBundle } } },
  },
});

describe("substitute", () => {
  it("replaces a whole-string token by the very value given, keeping everything else", () => {
    const ca = new FakeOutput("ca");
    const input = manifest();
    const out = substitute(input, { [PLACEHOLDERS.caBundle]: ca }) as any;
    expect(out.spec.caBundle).toBe(ca);
    expect(out.webhooks[0].clientConfig.caBundle).toBe(ca);
    expect(out.spec.template.metadata.annotations[CERTIFICATES_CHECKSUM_ANNOTATION]).toBe(ca);
    expect(out.spec.list).toEqual([1, true, null, "plain"]);
    expect(out.metadata.labels).toEqual({ [PLACEHOLDERS.caBundle]: "key-is-not-a-field" });
    expect(input.spec.caBundle).toBe(PLACEHOLDERS.caBundle); // input left alone
  });

  it("leaves a user's token-shaped strings outside the library's fields as written", () => {
    const user = {
      spec: {
        caBundle: PLACEHOLDERS.caBundle,
        template: {
          metadata: { annotations: { "team.example/note": PLACEHOLDERS.caBundle } },
          spec: { containers: [{ args: [`--flag=${PLACEHOLDERS.apiServerUrl}`, "@@karmada:typo@@"] }] },
        },
      },
    };
    const out = substitute(user, { [PLACEHOLDERS.caBundle]: "Q0E=" }) as any;
    expect(out.spec.caBundle).toBe("Q0E=");
    expect(out.spec.template).toEqual(user.spec.template);
    expect(findPlaceholders(user).map((u) => u.path)).toEqual(["spec.caBundle"]);
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
    expect(() => substitute(manifest(), { [PLACEHOLDERS.apiServerUrl]: "v" })).toThrow(
      `no value given for placeholder ${PLACEHOLDERS.caBundle} at webhooks[0].clientConfig.caBundle`,
    );
  });

  it("refuses unknown token-shaped strings in its own fields (typos)", () => {
    expect(() =>
      substitute({ webhooks: [{ clientConfig: { caBundle: "@@karmada:ca-bundel@@" } }] }, {}),
    ).toThrow("unknown placeholder @@karmada:ca-bundel@@ at webhooks[0].clientConfig.caBundle");
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
  // a library field's value and user data around it (where tokens are left alone)
  const documents = fc.record({
    webhooks: fc.array(
      fc.record({
        clientConfig: fc.record({ caBundle: leaf }),
        user: fc.anything({ values: [leaf], maxDepth: 2 }),
      }),
    ),
    data: fc.record({ kubeconfig: leaf, other: leaf }),
    spec: fc.anything({ values: [leaf], maxDepth: 3 }),
  });
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
  it("lists every occurrence in the library's fields with its path and whether it is the whole string", () => {
    const text = `a ${PLACEHOLDERS.caCrt} b ${PLACEHOLDERS.caCrt}`;
    const uses = findPlaceholders({ ...manifest(), data: { kubeconfig: text }, text });
    expect(uses).toEqual([
      { path: "webhooks[0].clientConfig.caBundle", token: PLACEHOLDERS.caBundle, whole: true },
      { path: "spec.caBundle", token: PLACEHOLDERS.caBundle, whole: true },
      {
        path: `spec.template.metadata.annotations.${CERTIFICATES_CHECKSUM_ANNOTATION}`,
        token: PLACEHOLDERS.caBundle,
        whole: true,
      },
      { path: "data.kubeconfig", token: PLACEHOLDERS.caCrt, whole: false },
      { path: "data.kubeconfig", token: PLACEHOLDERS.caCrt, whole: false },
    ]);
  });

  it("finds nothing in plain data", () => {
    expect(findPlaceholders({ a: ["b", 1, { c: "@@ not a token" }] })).toEqual([]);
  });
});

describe("PLACEHOLDER_FIELDS", () => {
  it("hold every token the library's manifests carry, on both clusters", () => {
    // every workload, etcd with backups, every component: each token-shaped string in the YAML is found
    const estate = synthesizeEstate(
      {
        components: {
          search: { enabled: true },
          metricsAdapter: { enabled: true },
          descheduler: { enabled: true },
        },
      },
      { replicas: 3, backup: { schedule: "0 * * * *" } },
    );
    for (const yaml of [estate.hostCluster, estate.karmadaApiServer]) {
      const objects = parseAllDocuments(yaml).map((d) => d.toJSON());
      const found = objects.flatMap((o) => findPlaceholders(o));
      expect(found.length).toBe((yaml.match(/@@karmada:[a-z0-9-]+@@/g) ?? []).length);
    }
    expect(PLACEHOLDER_FIELDS.length).toBeGreaterThan(0);
  });
});
