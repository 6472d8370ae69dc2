/**
 * The package-schema generator's rules, on a small component made for them
 * (test/unit/provider/fixtures/widget.ts): one field of every kind the mapping handles.
 */
import * as fs from "fs";
import * as path from "path";
import {
  GeneratedSchema,
  UndocumentedFieldsError,
  generatePackageSchema,
} from "../../../provider/schema/generate";
import { isSecretProperty } from "../../../provider/schema/secrets";
import { PropertySpec } from "../../../provider/schema/spec";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const FIXTURE = "test/unit/provider/fixtures/widget.ts";
const WIDGET = "karmada:index:Widget";
/** Where the fixture declares its undocumented field. */
const UNDOCUMENTED_AT = `${FIXTURE}:${
  fs
    .readFileSync(path.join(ROOT, FIXTURE), "utf8")
    .split("\n")
    .findIndex((line) => line.includes("readonly undocumented?")) + 1
}`;

let generated: GeneratedSchema;
beforeAll(() => {
  generated = generatePackageSchema(ROOT, { files: [FIXTURE], requireDocs: false });
});

const widget = () => generated.schema.resources[WIDGET];
const input = (name: string): PropertySpec => widget().inputProperties[name];
const type = (name: string) => generated.schema.types[`karmada:index:${name}`];

describe("package schema rules (fixture component)", () => {
  it("makes the class a component resource named by the token it passes to super", () => {
    expect(Object.keys(generated.schema.resources)).toEqual([WIDGET]);
    expect(widget()).toMatchObject({
      isComponent: true,
      description: "A widget.",
      requiredInputs: ["apiToken"],
    });
  });

  it("maps a named literal union to an enum type of that name, an anonymous one to <Owner><Property>", () => {
    expect(input("colour").$ref).toBe("#/types/karmada:index:WidgetColour");
    expect(type("WidgetColour")).toEqual({
      type: "string",
      description: "Colours a widget comes in.",
      enum: [{ value: "green" }, { value: "red" }],
    });
    expect(input("finish").$ref).toBe("#/types/karmada:index:WidgetFinish");
  });

  it("merges a discriminated union into one object type, saying which variant each property belongs to", () => {
    const source = type("PartSource");
    expect(source).toMatchObject({ type: "object", description: "Where a widget's parts come from." });
    // `kind` is optional in the catalogue variant, so it is optional in the merged type
    expect("required" in source && source.required).toBeFalsy();
    const properties = "properties" in source ? source.properties : {};
    expect(properties.kind.$ref).toBe("#/types/karmada:index:PartSourceKind");
    expect(properties.kind.description).toContain('Default: "catalogue"');
    expect(properties.url.description).toContain("Only with `kind` `url` (required there).");
    expect(properties.edition.description).toContain("Only with `kind` `catalogue`.");
    expect(type("PartSourceKind")).toEqual({
      type: "string",
      enum: [
        { value: "catalogue", description: "Parts from the catalogue." },
        { value: "url", description: "Parts downloaded from `url`." },
      ],
    });
  });

  it("maps records: identifier keys to an object type, other keys and string keys to a map", () => {
    expect(input("sizes").$ref).toBe("#/types/karmada:index:WidgetSizes");
    const sizes = type("WidgetSizes");
    expect("properties" in sizes && Object.keys(sizes.properties)).toEqual(["left", "right"]);
    expect(input("stock")).toMatchObject({ type: "object", additionalProperties: { type: "number" } });
    expect(input("stock").description).toContain("Keys: `north-hall`, `south-hall`.");
    expect(input("weights")).toMatchObject({ type: "object", additionalProperties: { type: "number" } });
  });

  it("drops a trailing Args from interface names (SDKs append their own)", () => {
    expect(input("rules").items?.$ref).toBe("#/types/karmada:index:PartRule");
    expect(type("PartRuleArgs")).toBeUndefined();
  });

  it("takes Input<T> as T, eventual; everything else is plain", () => {
    expect(input("apiToken")).toMatchObject({ type: "string" });
    expect(input("apiToken").plain).toBeUndefined();
    expect(input("colour").plain).toBe(true);
    expect(input("rules")).toMatchObject({ plain: true, items: { plain: true } });
  });

  it("maps unknown to Any (never plain), number|string to a union, component fields to references", () => {
    expect(input("extra")).toMatchObject({ $ref: "pulumi.json#/Any" });
    expect(input("extra").plain).toBeUndefined();
    expect(input("quotaBytes").oneOf).toEqual(
      expect.arrayContaining([{ type: "integer" }, { type: "string" }]),
    );
    expect(input("base").$ref).toBe(`#/resources/${WIDGET}`);
  });

  it("uses integer only where the name says the number is whole", () => {
    expect(input("ratio").type).toBe("number");
    expect(input("quotaBytes").oneOf).toContainEqual({ type: "integer" });
  });

  it("marks credentials secret by name or by a description calling them a secret", () => {
    expect(input("apiToken").secret).toBe(true);
    expect(input("signing").secret).toBe(true);
    expect(input("colour").secret).toBeUndefined();
  });

  it("keeps only outputs that can cross the wire and lists every field it leaves out", () => {
    expect(Object.keys(widget().properties).sort()).toEqual(["colour", "serial"]);
    expect(widget().required).toEqual(["colour", "serial"]);
    expect(widget().properties.serial.plain).toBeUndefined();
    expect(Object.fromEntries(generated.skipped.map((s) => [s.field, s.reason]))).toEqual({
      "Widget.now": "function (not serializable)",
      "Widget.painted": "promise (not serializable)",
      "Widget.partResources": "array of Resource (a resource with no schema type)",
      "Widget.madeFrom": expect.stringContaining("plain object holding secret fields"),
    });
  });

  it("appends @default to descriptions and never sets the schema default (SDKs would fill it in)", () => {
    expect(input("colour").description).toBe('Paint.\n\nDefault: "red"');
    const everyProperty = [
      ...Object.values(widget().inputProperties),
      ...Object.values(generated.schema.types).flatMap((t) =>
        "properties" in t ? Object.values(t.properties) : [],
      ),
    ];
    expect(everyProperty.filter((p) => "default" in p)).toEqual([]);
  });

  it("fails, naming field and declaration, when an input field has no doc comment — unless allowed", () => {
    expect(generated.undocumented).toEqual([{ field: "Widget.undocumented", location: UNDOCUMENTED_AT }]);
    let error: unknown;
    try {
      generatePackageSchema(ROOT, { files: [FIXTURE] });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UndocumentedFieldsError);
    expect((error as Error).message).toContain(`Widget.undocumented (${UNDOCUMENTED_AT})`);
  });
});

describe("the secret rule", () => {
  it.each([
    ["keyPem", true],
    ["caKeyPem", true],
    ["clientKeyPem", true],
    ["privateKey", true],
    ["kubeconfig", true],
    ["adminKubeconfig", true],
    ["memberKubeconfigs", true],
    ["token", true],
    ["bootstrapToken", true],
    ["password", true],
    ["hostKey", false],
    ["certPem", false],
    ["caCertPem", false],
    ["reportSecrets", false],
    ["bootstrapTokenTtlHours", false],
    ["tokenizer", false],
  ])("%s → %s by name", (name, secret) => {
    expect(isSecretProperty(name, undefined)).toBe(secret);
  });

  it("reads the description: the word secret, not the Kubernetes kind", () => {
    expect(isSecretProperty("material", "Its private key (secret).")).toBe(true);
    expect(isSecretProperty("reportSecrets", "Report the member's credentials (Secrets `<cluster>`).")).toBe(
      false,
    );
    expect(isSecretProperty("name", "Name of the Secret holding the certificate.")).toBe(false);
  });
});
