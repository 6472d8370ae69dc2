/**
 * provider/schema.json, the package schema the component provider serves: what it says about the four
 * components, checked against the TypeScript declarations and the runtime constants they come from, and
 * that the committed file is what the generator makes of the current sources.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { ADDON_KINDS, ADDON_TARGETS } from "../../../lib/addons/config";
import { SERVICE_MANAGERS } from "../../../lib/hosts/service";
import {
  AGENT_IDENTITIES,
  CLUSTER_TAINT_EFFECTS,
  MEMBER_PERMISSIONS,
  SYNC_MODES,
} from "../../../lib/members/config";
import { CONTROL_PLANE_MODES } from "../../../lib/controlplane/hosts/modeConfig";
import { ETCD_MODES } from "../../../components/etcd/args";
import { SERVED_COMPONENTS } from "../../../provider/components";
import { GeneratedSchema, generatePackageSchema } from "../../../provider/schema/generate";
import { ComponentProgram, loadComponents } from "../../../provider/schema/program";
import { SCHEMA_FILE, sortedDeep } from "../../../provider/schema/json";
import { ComplexTypeSpec, PropertySpec, TypeSpec } from "../../../provider/schema/spec";
import { typeTokensOf } from "../../../provider/schema/walk";
import { NOT_SERVED_OUTPUTS } from "../../../provider/schema/outputs";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const KUBERNETES_VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/@pulumi/kubernetes/package.json"), "utf8")) as {
    version: string;
  }
).version;
const KUBERNETES_PROVIDER = `/kubernetes/v${KUBERNETES_VERSION}/schema.json#/provider`;

/** Public fields the schema leaves out, and why (a new public field must be a conscious decision). */
const SKIPPED: Readonly<Record<string, string>> = {
  "RotationSettings.now": "function (not serializable)",
  "EtcdCluster.ready": "Resource (a resource with no schema type)",
  "EtcdCluster.namespace": "Resource (a resource with no schema type)",
  "KarmadaControlPlane.hostsSettings":
    "plain object holding secret fields (SDKs mark only top-level outputs secret: they would reach the state in plain text)",
  "KarmadaControlPlane.hostCommands": "map of Command (a resource with no schema type)",
  "KarmadaControlPlane.controllers": "array of Resource (a resource with no schema type)",
  "KarmadaControlPlane.karmadaObjectsReady": "promise (not serializable)",
  "KarmadaControlPlane.controllersReady": "promise (not serializable)",
  "KarmadaControlPlane.clusterApiReady": "array of Resource (a resource with no schema type)",
  "MemberRegistration.cluster": "CustomResource (a resource with no schema type)",
  "Addon.resources": "array of Resource (a resource with no schema type)",
  ...NOT_SERVED_OUTPUTS,
};

/** Every field that carries key material or credentials: exactly these are `secret`. */
const SECRET_FIELDS = [
  "AddonMember.kubeconfig",
  "CaSource.keyPem",
  "EtcdCluster.clientKeyPem (output)",
  "EtcdExternalConfig.clientKeyPem",
  "HostSpec.privateKey",
  "KarmadaControlPlane.adminKubeconfig (output)",
  "ProxySpec.privateKey",
];

/** Literal unions and the runtime constants the validation checks them against. */
const ENUMS: [string, string, readonly string[]][] = [
  ["EtcdCluster", "mode", ETCD_MODES],
  ["KarmadaControlPlane", "mode", CONTROL_PLANE_MODES],
  ["MemberRegistration", "mode", SYNC_MODES],
  ["MemberRegistration", "permissions", MEMBER_PERMISSIONS],
  ["PullOptions", "identity", AGENT_IDENTITIES],
  ["ClusterTaint", "effect", CLUSTER_TAINT_EFFECTS],
  ["Addon", "kind", ADDON_KINDS],
  ["Addon", "target", ADDON_TARGETS],
  ["EtcdHosts", "serviceManager", SERVICE_MANAGERS],
];

let program: ComponentProgram;
let generated: GeneratedSchema;
beforeAll(() => {
  program = loadComponents(ROOT);
  generated = generatePackageSchema(ROOT, { program, requireDocs: false });
});

const resource = (name: string) => generated.schema.resources[`karmada:index:${name}`];
const objectType = (name: string): Extract<ComplexTypeSpec, { properties: unknown }> => {
  const type = generated.schema.types[`karmada:index:${name}`];
  if (!type || !("properties" in type)) throw new Error(`no object type ${name}`);
  return type;
};
/** Input `name` of component `owner`, or property `name` of object type `owner`. */
const propertyOf = (owner: string, name: string): PropertySpec =>
  generated.schema.resources[`karmada:index:${owner}`]?.inputProperties[name] ??
  objectType(owner).properties[name];
const enumValues = (ref: string | undefined): string[] => {
  const type = generated.schema.types[(ref ?? "").replace("#/types/", "")];
  if (!type || !("enum" in type)) throw new Error(`${ref} is not an enum type`);
  return type.enum.map((v) => v.value);
};

/**
 * Fields of each component's `<Class>Args` interface as TypeScript declares it (extends and intersections
 * included), found by name among the sources under components/ rather than through the constructor the
 * generator reads.
 */
function argsFields(): Map<string, { names: string[]; required: string[] }> {
  const { checker } = program;
  const componentsDir = path.join(ROOT, "components") + path.sep;
  const files = program.program
    .getSourceFiles()
    .filter((f) => path.resolve(f.fileName).startsWith(componentsDir));
  const argsNames = new Set(program.components.map((c) => `${c.name}Args`));
  const fields = new Map<string, { names: string[]; required: string[] }>();
  for (const statement of files.flatMap((file) => [...file.statements])) {
    if (!ts.isInterfaceDeclaration(statement) || !argsNames.has(statement.name.text)) continue;
    const properties = checker.getPropertiesOfType(checker.getTypeAtLocation(statement));
    fields.set(statement.name.text.replace(/Args$/, ""), {
      names: properties.map((p) => p.name).sort(),
      required: properties
        .filter((p) => !(p.flags & ts.SymbolFlags.Optional))
        .map((p) => p.name)
        .sort(),
    });
  }
  return fields;
}

describe("provider/schema.json", () => {
  // the same document, key order included; the bytes (prettier's formatting) are `schema:package --check`'s
  it("is what the generator makes of the current sources (npm run schema:package)", () => {
    const committed: unknown = JSON.parse(fs.readFileSync(path.join(ROOT, SCHEMA_FILE), "utf8"));
    expect(JSON.stringify(committed, null, 1)).toBe(JSON.stringify(sortedDeep(generated.schema), null, 1));
  });

  it("serves the four components under the tokens the provider constructs", () => {
    expect(Object.keys(generated.schema.resources).sort()).toEqual(Object.keys(SERVED_COMPONENTS).sort());
    for (const spec of Object.values(generated.schema.resources)) expect(spec.isComponent).toBe(true);
  });

  it("has every field of each component's Args as an input, required exactly where TypeScript requires it", () => {
    const fields = argsFields();
    expect([...fields.keys()].sort()).toEqual([
      "Addon",
      "EtcdCluster",
      "KarmadaControlPlane",
      "MemberRegistration",
    ]);
    for (const [component, { names, required }] of fields) {
      const spec = resource(component);
      expect([component, Object.keys(spec.inputProperties).sort()]).toEqual([component, names]);
      expect([component, [...spec.requiredInputs].sort()]).toEqual([component, required]);
    }
  });

  it("leaves out exactly the listed fields, each with its reason", () => {
    expect(Object.fromEntries(generated.skipped.map((s) => [s.field, s.reason]))).toEqual(SKIPPED);
  });

  it.each(ENUMS)("makes %s.%s an enum of the values the code validates against", (owner, name, values) => {
    expect(enumValues(propertyOf(owner, name).$ref).sort()).toEqual([...values].sort());
  });

  it("merges the CRD source union into one object type keyed by kind", () => {
    const crds = resource("KarmadaControlPlane").inputProperties.crds;
    expect(crds.$ref).toBe("#/types/karmada:index:CrdSource");
    const source = objectType("CrdSource");
    expect(source.required).toEqual(["kind"]);
    expect(enumValues(source.properties.kind.$ref)).toEqual(["path", "release", "url"]);
    expect(source.properties.url.description).toContain("Only with `kind` `url` (required there).");
    expect(source.properties.path.description).toContain("Only with `kind` `path` (required there).");
    expect(source.properties.sha256.description).not.toContain("Only with");
  });

  it("refers to components and to the kubernetes provider, and depends on that package", () => {
    expect(resource("KarmadaControlPlane").inputProperties.etcd.$ref).toBe(
      "#/resources/karmada:index:EtcdCluster",
    );
    expect(resource("MemberRegistration").inputProperties.controlPlane.$ref).toBe(
      "#/resources/karmada:index:KarmadaControlPlane",
    );
    expect(resource("Addon").inputProperties.controlPlane.$ref).toBe(
      "#/resources/karmada:index:KarmadaControlPlane",
    );
    expect(resource("Addon").inputProperties.etcd.$ref).toBe("#/resources/karmada:index:EtcdCluster");
    expect(resource("KarmadaControlPlane").properties.karmadaProvider).toBeUndefined();
    expect(objectType("AddonMember").properties.provider.$ref).toBe(KUBERNETES_PROVIDER);
    expect(generated.schema.dependencies).toEqual([{ name: "kubernetes", version: KUBERNETES_VERSION }]);
  });

  it("marks exactly the credential fields secret", () => {
    const secrets = [
      ...Object.entries(generated.schema.resources).flatMap(([token, spec]) => {
        const component = token.split(":")[2];
        return [
          ...Object.entries(spec.inputProperties)
            .filter(([, p]) => p.secret)
            .map(([n]) => `${component}.${n} (input)`),
          ...Object.entries(spec.properties)
            .filter(([, p]) => p.secret)
            .map(([n]) => `${component}.${n} (output)`),
        ];
      }),
      ...Object.entries(generated.schema.types).flatMap(([token, type]) =>
        "properties" in type
          ? Object.entries(type.properties)
              .filter(([, p]) => p.secret)
              .map(([n]) => `${token.split(":")[2]}.${n}`)
          : [],
      ),
    ];
    expect(secrets.sort()).toEqual(SECRET_FIELDS);
  });

  it("takes what the component reads at construction as plain, and Inputs as eventual values", () => {
    const member = resource("MemberRegistration").inputProperties;
    expect(member.clusterName.plain).toBe(true);
    expect(member.caBundle.plain).toBeUndefined();
    expect(objectType("HostSpec").properties.privateKey.plain).toBeUndefined();
    expect(objectType("HostSpec").properties.port).toMatchObject({ type: "integer", plain: true });
    for (const output of Object.values(resource("EtcdCluster").properties))
      expect(output.plain).toBeUndefined();
  });

  it("describes properties with their doc comment and @default", () => {
    const mode = resource("EtcdCluster").inputProperties.mode.description ?? "";
    expect(mode).toMatch(/^Where etcd runs/);
    expect(mode).toMatch(/Default: "inCluster"$/);
    expect(objectType("HostSpec").properties.port.description).toMatch(/Default: 22$/);
  });

  it("refers only to types it defines, and defines only types it refers to", () => {
    const all = (spec: { properties?: Record<string, PropertySpec> }): TypeSpec[] =>
      Object.values(spec.properties ?? {});
    const refs = new Set(
      [
        ...Object.values(generated.schema.resources).flatMap((r) => [
          ...Object.values(r.inputProperties),
          ...Object.values(r.properties),
        ]),
        ...Object.values(generated.schema.types).flatMap((t) => ("properties" in t ? all(t) : [])),
      ].flatMap(typeTokensOf),
    );
    expect([...refs].sort()).toEqual(Object.keys(generated.schema.types).sort());
    for (const type of Object.values(generated.schema.types)) {
      if ("properties" in type)
        for (const name of type.required ?? []) expect(Object.keys(type.properties)).toContain(name);
    }
  });
});
