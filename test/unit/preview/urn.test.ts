import { ConfigError } from "../../../lib/validation/errors";
import { parseUrn, shortTypeName } from "../../../lib/preview/urn";

describe("parseUrn", () => {
  test("splits stack, project, the parent type chain and the name", () => {
    const parsed = parseUrn(
      "urn:pulumi:dev::karmada-estate::karmada:index:KarmadaControlPlane$kubernetes:apps/v1:Deployment::karmada-deployment-x",
    );
    expect(parsed).toEqual({
      stack: "dev",
      project: "karmada-estate",
      typeChain: ["karmada:index:KarmadaControlPlane", "kubernetes:apps/v1:Deployment"],
      type: "kubernetes:apps/v1:Deployment",
      name: "karmada-deployment-x",
    });
  });

  test("a resource directly in the stack has a one-element chain", () => {
    expect(parseUrn("urn:pulumi:dev::p::pulumi:providers:kubernetes::host").typeChain).toEqual([
      "pulumi:providers:kubernetes",
    ]);
  });

  test("keeps a name that itself contains '::'", () => {
    expect(parseUrn("urn:pulumi:s::p::t:m:T::a::b").name).toBe("a::b");
  });

  test.each([
    ["not a urn", "urn"],
    ["urn:pulumi:s::p::t:m:T", "urn"],
    ["urn:other:s::p::t:m:T::n", "urn"],
    ["urn:pulumi:s::p::::n", "urn"],
  ])("%j is refused, naming the field", (bad, field) => {
    expect(() => parseUrn(bad)).toThrow(ConfigError);
    expect(() => parseUrn(bad)).toThrow(`invalid ${field}: ${JSON.stringify(bad)} is not a Pulumi URN`);
  });

  test("the error names the field given by the caller", () => {
    expect(() => parseUrn(42 as unknown as string, "preview.steps[3].urn")).toThrow(
      "invalid preview.steps[3].urn: 42 is not a Pulumi URN (allowed: urn:pulumi:<stack>::<project>::<type>::<name>)",
    );
  });
});

describe("shortTypeName", () => {
  test.each([
    ["karmada:index:KarmadaControlPlane", "KarmadaControlPlane"],
    ["kubernetes:apps/v1:Deployment", "Deployment"],
    ["pulumi:providers:kubernetes", "kubernetes"],
    ["Odd", "Odd"],
  ])("%s → %s", (type, short) => expect(shortTypeName(type)).toBe(short));
});
