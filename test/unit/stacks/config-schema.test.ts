/**
 * The stack-file schema editors use (schemas/stack-config.schema.json) and the program's own check —
 * what `pulumi up` runs before anything registers: `readStackConfig` (parseStackConfig,
 * validateStackSecrets), then each component's plan as `buildEstate` constructs it — agree on a table
 * of stack files: both accept, or both reject naming the same field. Rules only the program can check
 * have a table of their own, so agreement on the main table is exact.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import Ajv, { ErrorObject } from "ajv";
import { parse as parseYaml } from "yaml";
import { SCHEMA_PATH, buildStackFileSchema } from "../../../scripts/config-schema/generate";
import { SchemaNode, walkSchema } from "../../../scripts/config-schema/walk";
import { STACK_CONFIG_KEYS } from "../../../stacks/config";
import { buildEstate } from "../../../stacks/estate";
import { readStackConfig } from "../../../stacks/program";
import { FIXTURE_CRD_SOURCE } from "../../support/estate";
import { generateCa } from "../../../devkit/pki";
import { recordResources } from "../../support/mocks";
import { testKubeconfig } from "../../support/kubeconfig";
import { TEST_SSH_KEY } from "../../../devkit/sshKey";
import { simulateControllers } from "../members/simulate";

// The CRD bundle loads asynchronously, after every check has run; rows need neither network nor disk.
jest.mock("../../../lib/crds/load", () => ({
  ...jest.requireActual("../../../lib/crds/load"),
  loadCrdBundle: async () => ({ crds: [], source: "not loaded by this test" }),
}));

const ROOT = join(__dirname, "../../..");
const STACK_FILES = ["Pulumi.local.yaml", "Pulumi.dev.yaml", "Pulumi.prod.yaml", "Pulumi.sandbox.yaml"];
/** Stack files complete but for their secrets (devkit/sandbox/stack.ts adds Pulumi.local.yaml's binaries). */
const COMPLETE_STACK_FILES = STACK_FILES.filter((file) => file !== "Pulumi.local.yaml");
const MODELINE = `# yaml-language-server: $schema=./${SCHEMA_PATH}`;

const committedSchema = JSON.parse(readFileSync(join(ROOT, SCHEMA_PATH), "utf8"));
const ajv = new Ajv({ allErrors: true, strictSchema: true, strictTypes: true, allowUnionTypes: true });
const validateStackFile = ajv.compile(committedSchema);

const ca = generateCa(mkdtempSync(join(tmpdir(), "config-schema-")), "schema-test-ca");
const KUBECONFIG = testKubeconfig("kind-dev");

/** What the engine decrypts each ciphertext of the rows to (rows write `secure(…)` as a stack file does). */
const DECRYPTED = {
  "v1:ssh-key": TEST_SSH_KEY,
  "v1:kubeconfig": KUBECONFIG,
  "v1:not-a-kubeconfig": "server: https://10.0.0.9:6443\n",
  "v1:ca-key": ca.keyPem,
  "v1:member-kubeconfigs": JSON.stringify({ "edge-1": KUBECONFIG }),
} as const;
const secure = (ciphertext: keyof typeof DECRYPTED) => ({ secure: ciphertext });

/** A stack file's `config` map, as YAML parses it. */
type StackFileConfig = Record<string, unknown>;

const isSecure = (value: unknown): value is { secure: string } =>
  typeof value === "object" && value !== null && Object.keys(value).join() === "secure";

/** `value` with every `{ secure }` replaced by its plain text, as the engine hands config to a program. */
function decrypt(value: unknown): unknown {
  if (isSecure(value)) {
    if (!(value.secure in DECRYPTED)) throw new Error(`test bug: no plain text for ${value.secure}`);
    return DECRYPTED[value.secure as keyof typeof DECRYPTED];
  }
  if (Array.isArray(value)) return value.map(decrypt);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decrypt(v)]));
}

const holdsSecret = (value: unknown): boolean =>
  isSecure(value) || (typeof value === "object" && value !== null && Object.values(value).some(holdsSecret));

/**
 * Hands `config` to the program as the engine does — each key's value a string (objects as JSON,
 * decrypted), secret when it holds an encrypted value — and runs its check: `readStackConfig`, then
 * `buildEstate` under mocks (each component checks its args before it registers). The error, if any.
 */
function programCheck(config: StackFileConfig): Error | undefined {
  const values = Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      const plain = decrypt(value);
      return [key, typeof plain === "string" ? plain : JSON.stringify(plain)];
    }),
  );
  recordResources();
  simulateControllers();
  pulumi.runtime.setAllConfig(
    values,
    Object.keys(config).filter((key) => holdsSecret(config[key])),
  );
  // Pulumi records a stack trace per resource; with jest's source maps that is nine tenths of a row's
  // time, and a row needs only the error's message
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    buildEstate(readStackConfig());
    return undefined;
  } catch (error) {
    return error as Error;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** An ajv error's place as a config path (`karmada:members[0].mode`), the offending key included. */
function errorField(error: ErrorObject): string {
  const key = error.params as { missingProperty?: string; additionalProperty?: string };
  const segments = [
    ...error.instancePath.split("/").slice(2),
    ...[key.missingProperty ?? key.additionalProperty].filter((k): k is string => k !== undefined),
  ].map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  return segments.reduce((path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : path ? `${path}.${s}` : s), "");
}

/** The schema's verdict on a stack file holding `config`: the fields it rejects (none: accepted). */
function schemaCheck(config: StackFileConfig): string[] {
  return validateStackFile({ config }) ? [] : (validateStackFile.errors ?? []).map(errorField);
}

/** Whether `fields` (config paths) name `field`: the same path, or one ending in it. */
const namesField = (fields: string[], field: string) =>
  fields.some((f) => f === field || f.endsWith(`.${field}`) || f.endsWith(`:${field}`));

const PUSH = { clusterName: "edge-1", mode: "Push", apiEndpoint: "https://10.0.1.1:6443" };
const PULL = { clusterName: "edge-2", mode: "Pull", apiEndpoint: "https://10.0.2.1:6443" };
/** Members with their kubeconfigs, each encrypted on its own (`--path`). */
const pushAndPull = (push: object = {}, pull: object = {}): StackFileConfig => ({
  "karmada:members": [
    { ...PUSH, ...push },
    { ...PULL, ...pull },
  ],
  "karmada:memberKubeconfigs": { "edge-1": secure("v1:kubeconfig"), "edge-2": secure("v1:kubeconfig") },
});
const ETCD_HOSTS = [
  { name: "etcd1", address: "10.0.0.11" },
  { name: "etcd2", address: "10.0.0.12" },
  { name: "etcd3", address: "10.0.0.13" },
];
const etcdOnHosts = (hosts: object[] = ETCD_HOSTS, extra: object = {}) => ({
  mode: "hosts",
  hosts: { serviceManager: "supervisor", hosts, ...extra },
});
const CONTROL_PLANE_ON_HOSTS = {
  mode: "hosts",
  apiServer: { externalEndpoint: "10.0.0.100:5443" },
  hosts: {
    machines: [
      { name: "cp1", address: "10.0.0.5" },
      { name: "cp2", address: "10.0.0.6", privateKey: secure("v1:ssh-key") },
    ],
    binaries: { path: "/opt/karmada/bin" },
  },
};

/** A row: what it shows, the stack file's `config`, and the field both reject (none: both accept). */
type Row = [what: string, config: StackFileConfig, rejectedField?: string];

/** Stack files the schema and the program judge alike. */
const AGREED: Row[] = [
  // accepted by both
  ["no settings at all (every default)", {}],
  [
    "in-cluster etcd with backups, NodePort API server, another namespace's keys alongside",
    {
      "kubernetes:enableServerSideApply": "true",
      "pulumi:tags": { team: "platform" },
      "karmada:hostContext": "kind-dev",
      "karmada:etcd": {
        mode: "inCluster",
        inCluster: {
          replicas: 3,
          storage: { kind: "pvc", size: "20Gi", storageClassName: "fast-ssd" },
          backup: { schedule: "0 */4 * * *", retain: 12 },
        },
      },
      "karmada:controlPlane": {
        apiServer: { serviceType: "NodePort", nodePort: 32443, externalEndpoint: "172.18.0.2:32443" },
      },
    },
  ],
  ["the host kubeconfig encrypted", { "karmada:hostKubeconfig": secure("v1:kubeconfig") }],
  [
    "etcd on hosts, each host with its own encrypted key",
    { "karmada:etcd": etcdOnHosts(ETCD_HOSTS.map((h) => ({ ...h, privateKey: secure("v1:ssh-key") }))) },
  ],
  [
    "etcd and control plane on hosts, keys from karmada:sshPrivateKey (cp2 brings its own)",
    {
      "karmada:etcd": etcdOnHosts(),
      "karmada:controlPlane": CONTROL_PLANE_ON_HOSTS,
      "karmada:sshPrivateKey": secure("v1:ssh-key"),
    },
  ],
  [
    "an external etcd whose client key is encrypted",
    {
      "karmada:etcd": {
        mode: "external",
        external: {
          endpoints: ["https://10.0.0.1:2379"],
          caCertPem: ca.certPem,
          clientCertPem: ca.certPem,
          clientKeyPem: secure("v1:ca-key"),
        },
      },
    },
  ],
  ["a push and a pull member, kubeconfigs encrypted one by one", pushAndPull()],
  [
    "a member whose kubeconfig map is encrypted whole",
    { "karmada:members": [PUSH], "karmada:memberKubeconfigs": secure("v1:member-kubeconfigs") },
  ],
  [
    "members with taints, zones, least privilege and bootstrap-token pull options",
    pushAndPull(
      { taints: [{ key: "example.com/dedicated", effect: "NoSchedule" }], zones: ["z1", "z2"] },
      { permissions: "leastPrivilege", pull: { identity: "bootstrapToken", replicas: 2 } },
    ),
  ],
  [
    "addons: built-ins, an estimator per member, manifests on every member, a Helm chart",
    {
      ...pushAndPull(),
      "karmada:addons": [
        { name: "descheduler", kind: "descheduler", overrides: { replicas: 2 } },
        { name: "estimator", kind: "schedulerEstimator" },
        {
          name: "team-namespace",
          kind: "manifests",
          target: "members",
          manifests: { objects: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } }] },
        },
        { name: "chart", kind: "helm", helm: { chart: "oci://registry.example/charts/x", version: "1.0.0" } },
      ],
    },
  ],
  [
    "CRDs from a mirror with a checksum",
    { "karmada:crds": { kind: "url", url: "https://mirror.example/crds.tar.gz", sha256: "a".repeat(64) } },
  ],
  ["CRDs from a local directory", { "karmada:crds": FIXTURE_CRD_SOURCE }],
  [
    "a brought Karmada CA with its key encrypted, leaf rotation window",
    {
      "karmada:controlPlane": {
        pki: {
          karmadaCa: { certPem: ca.certPem, keyPem: secure("v1:ca-key") },
          rotation: { renewBeforeHours: 720 },
        },
      },
    },
  ],
  [
    "private registry, feature gates, per-component replicas, flags and pull policy",
    {
      "karmada:controlPlane": {
        images: { registry: "registry.example:5000/karmada" },
        featureGates: { Failover: true },
        components: {
          scheduler: { replicas: 2, extraArgs: { v: "4" }, imagePullPolicy: "Always" },
          descheduler: { enabled: true },
        },
        protect: true,
      },
    },
  ],
  // rejected by both, naming the same field
  ["etcd mode misspelled", { "karmada:etcd": { mode: "incluster" } }, "mode"],
  ["control-plane mode that does not exist", { "karmada:controlPlane": { mode: "binary" } }, "mode"],
  [
    "Service type misspelled",
    { "karmada:controlPlane": { apiServer: { serviceType: "Nodeport" } } },
    "apiServer.serviceType",
  ],
  [
    "image pull policy in lower case",
    { "karmada:controlPlane": { components: { webhook: { imagePullPolicy: "always" } } } },
    "components.webhook.imagePullPolicy",
  ],
  [
    "replicas as a word",
    { "karmada:controlPlane": { components: { scheduler: { replicas: "three" } } } },
    "components.scheduler.replicas",
  ],
  ["protect as a word", { "karmada:controlPlane": { protect: "yes" } }, "protect"],
  [
    "etcd createNamespace as a string",
    { "karmada:etcd": { inCluster: { createNamespace: "true" } } },
    "inCluster.createNamespace",
  ],
  [
    "etcd storage kind misspelled",
    { "karmada:etcd": { inCluster: { storage: { kind: "pv" } } } },
    "storage.kind",
  ],
  [
    "etcd hosts' service manager misspelled",
    {
      "karmada:etcd": etcdOnHosts(ETCD_HOSTS, { serviceManager: "systemctl" }),
      "karmada:sshPrivateKey": secure("v1:ssh-key"),
    },
    "hosts.serviceManager",
  ],
  [
    "etcd hosts given as one name instead of a list",
    {
      "karmada:etcd": { mode: "hosts", hosts: { hosts: "etcd1" } },
      "karmada:sshPrivateKey": secure("v1:ssh-key"),
    },
    "hosts.hosts",
  ],
  ["etcd given as a mode name instead of an object", { "karmada:etcd": "inCluster" }, "karmada:etcd"],
  ["members given as a map instead of a list", { "karmada:members": { "edge-1": PUSH } }, "karmada:members"],
  ["member mode in lower case", pushAndPull({ mode: "push" }), "mode"],
  [
    "member without apiEndpoint",
    {
      "karmada:members": [{ clusterName: "edge-1", mode: "Push" }],
      "karmada:memberKubeconfigs": { "edge-1": KUBECONFIG },
    },
    "apiEndpoint",
  ],
  [
    "member without clusterName",
    { "karmada:members": [{ mode: "Push", apiEndpoint: PUSH.apiEndpoint }] },
    "karmada:members[0].clusterName",
  ],
  ["member permissions misspelled", pushAndPull({ permissions: "readonly" }), "permissions"],
  [
    "taint effect Karmada refuses",
    pushAndPull({ taints: [{ key: "a", effect: "PreferNoSchedule" }] }),
    "taints[0].effect",
  ],
  ["pull identity misspelled", pushAndPull({}, { pull: { identity: "token" } }), "pull.identity"],
  [
    "member kubeconfigs given as a list",
    { "karmada:members": [PUSH], "karmada:memberKubeconfigs": [KUBECONFIG] },
    "karmada:memberKubeconfigs",
  ],
  ["addon kind misspelled", { "karmada:addons": [{ name: "d", kind: "deschedular" }] }, "kind"],
  [
    "addon target misspelled",
    {
      "karmada:addons": [
        {
          name: "m",
          kind: "manifests",
          target: "member",
          manifests: { yaml: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n" },
        },
      ],
    },
    "target",
  ],
  ["addon without name", { "karmada:addons": [{ kind: "descheduler" }] }, "karmada:addons[0].name"],
  ["CRD source kind misspelled", { "karmada:crds": { kind: "relase" } }, "crds.kind"],
  ["CRD source of kind url without url", { "karmada:crds": { kind: "url" } }, "crds.url"],
  [
    "CRD source with a key of another kind",
    { "karmada:crds": { kind: "release", path: "/tmp" } },
    "crds.path",
  ],
  [
    "a secret written with a misspelt `secure`",
    {
      "karmada:controlPlane": {
        pki: { karmadaCa: { certPem: ca.certPem, keyPem: { secret: "v1:ca-key" } } },
      },
    },
    "pki.karmadaCa.keyPem",
  ],
  ["a misspelt top-level key", { "karmada:controlplane": { protect: true } }, "karmada:controlplane"],
  // typos and wrong types deep inside a setting: the program checks its settings against the schema
  [
    "a key without namespace (Pulumi files it under the project's name, which the program does not read)",
    { etcd: { mode: "inCluster" } },
    "etcd",
  ],
  [
    "a misspelt control-plane field",
    { "karmada:controlPlane": { apiServer: { servicetype: "NodePort" } } },
    "apiServer.servicetype",
  ],
  ["a misspelt etcd field", { "karmada:etcd": { inCluster: { replica: 3 } } }, "inCluster.replica"],
  ["a misspelt member field", pushAndPull({ zone: ["z1"] }), "karmada:members[0].zone"],
  [
    "a misspelt addon field",
    { "karmada:addons": [{ name: "d", kind: "descheduler", override: { replicas: 2 } }] },
    "karmada:addons[0].override",
  ],
  [
    "an object where the host context's name belongs",
    { "karmada:hostContext": { name: "kind-dev" } },
    "karmada:hostContext",
  ],
  [
    "a misspelt field of an etcd host",
    { "karmada:etcd": etcdOnHosts([{ ...ETCD_HOSTS[0], adress: "10.0.0.9" }]) },
    "karmada:etcd.hosts.hosts[0].adress",
  ],
  [
    "a number written as text deep inside",
    { "karmada:etcd": { inCluster: { backup: { retain: "twelve" } } } },
    "karmada:etcd.inCluster.backup.retain",
  ],
  [
    "a misspelt field of one form of a union (CRDs from a URL)",
    { "karmada:crds": { kind: "url", ur: "https://mirror.example/crds.tar.gz" } },
    "karmada:crds.ur",
  ],
  ["a union form nobody offers", { "karmada:crds": { kind: "git" } }, "karmada:crds.kind"],
  [
    "a storage form missing its path",
    { "karmada:etcd": { inCluster: { storage: { kind: "hostPath" } } } },
    "karmada:etcd.inCluster.storage.path",
  ],
  [
    "a list where a map belongs",
    { "karmada:controlPlane": { apiServer: [] } },
    "karmada:controlPlane.apiServer",
  ],
  [
    "a member kubeconfig that is a map, not text",
    { "karmada:members": [PUSH], "karmada:memberKubeconfigs": { "edge-1": { server: "x" } } },
    "karmada:memberKubeconfigs.edge-1",
  ],
];

/**
 * Rules a JSON Schema cannot state — contents of values, relations between fields and keys, state of
 * the machine — or that the TypeScript types leave wider than the program: the schema accepts, the
 * program rejects naming the field.
 */
const PROGRAM_ONLY: Row[] = [
  [
    "secret contents: a member kubeconfig that is no kubeconfig",
    { "karmada:members": [PUSH], "karmada:memberKubeconfigs": { "edge-1": secure("v1:not-a-kubeconfig") } },
    "karmada:memberKubeconfigs.edge-1",
  ],
  [
    "secret contents: a host kubeconfig without the context karmada:hostContext names",
    { "karmada:hostKubeconfig": secure("v1:kubeconfig"), "karmada:hostContext": "kind-prod" },
    "karmada:hostKubeconfig",
  ],
  [
    "cron contents: hour 25",
    { "karmada:etcd": { inCluster: { backup: { schedule: "0 25 * * *" } } } },
    "inCluster.backup.schedule",
  ],
  [
    "CA PEM contents: not a certificate",
    { "karmada:controlPlane": { pki: { karmadaCa: { certPem: "not a pem" } } } },
    "pki.karmadaCa.certPem",
  ],
  [
    "secret contents: a public key as sshPrivateKey",
    { "karmada:sshPrivateKey": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA user@host" },
    "karmada:sshPrivateKey",
  ],
  [
    "number range: replicas 0",
    { "karmada:controlPlane": { components: { scheduler: { replicas: 0 } } } },
    "components.scheduler.replicas",
  ],
  [
    "whole numbers: the types say number, the program wants an integer",
    { "karmada:controlPlane": { components: { scheduler: { replicas: 1.5 } } } },
    "components.scheduler.replicas",
  ],
  [
    "name format: a cluster name that is not a DNS label",
    {
      "karmada:members": [{ ...PUSH, clusterName: "Edge_1" }],
      "karmada:memberKubeconfigs": { Edge_1: KUBECONFIG },
    },
    "clusterName",
  ],
  [
    "owned flags: extraArgs setting a flag the control plane derives",
    {
      "karmada:controlPlane": {
        components: { apiServer: { extraArgs: { "etcd-servers": "http://x:2379" } } },
      },
    },
    'components.apiServer.extraArgs["etcd-servers"]',
  ],
  [
    "the etcd type says string for imagePullPolicy; the program knows three",
    { "karmada:etcd": { inCluster: { imagePullPolicy: "Sometimes" } } },
    "inCluster.imagePullPolicy",
  ],
  [
    "uniqueness across a list: one cluster name twice",
    { "karmada:members": [PUSH, PUSH], "karmada:memberKubeconfigs": { "edge-1": KUBECONFIG } },
    "karmada:members[1]",
  ],
  ["cross-field: pull options on a push member", pushAndPull({ pull: { replicas: 2 } }), "pull"],
  [
    "cross-field: a section of another etcd mode",
    { "karmada:etcd": { mode: "external", inCluster: { replicas: 3 } } },
    "inCluster",
  ],
  [
    "cross-field: a hosts section without hosts mode",
    {
      "karmada:controlPlane": { hosts: CONTROL_PLANE_ON_HOSTS.hosts },
      "karmada:sshPrivateKey": secure("v1:ssh-key"),
    },
    "hosts",
  ],
  [
    "cross-field: leaves outliving their CA",
    { "karmada:controlPlane": { pki: { caValidityHours: 1000, leafValidityHours: 2000 } } },
    "pki.leafValidityHours",
  ],
  [
    "cross-key: a member without its kubeconfig",
    { "karmada:members": [PUSH] },
    "karmada:memberKubeconfigs.edge-1",
  ],
  [
    "cross-key: a kubeconfig for no member",
    { "karmada:memberKubeconfigs": { "edge-9": KUBECONFIG } },
    "karmada:memberKubeconfigs.edge-9",
  ],
  [
    "cross-key: an estimator without members",
    { "karmada:addons": [{ name: "estimator", kind: "schedulerEstimator" }] },
    "members",
  ],
  // secrets are set apart from editing the file (`pulumi config set --secret`), so the schema never demands one
  [
    "secret presence: etcd hosts without any SSH key",
    { "karmada:etcd": etcdOnHosts() },
    "hosts.hosts[0].privateKey",
  ],
  [
    "machine state: a CRD path that does not exist",
    { "karmada:crds": { kind: "path", path: "/nonexistent/crds.tar.gz" } },
    "crds.path",
  ],
];

describe("the schema and the program's own check agree on stack files", () => {
  it.each(AGREED)("%s", (...[, config, field]: Row) => {
    const schemaFields = schemaCheck(config);
    const programError = programCheck(config);
    if (field === undefined) {
      expect({ schema: schemaFields, program: programError?.message }).toEqual({
        schema: [],
        program: undefined,
      });
      return;
    }
    expect({ schema: namesField(schemaFields, field), fields: schemaFields }).toMatchObject({ schema: true });
    expect(programError?.message).toContain(field);
  });
});

describe("rules only the program checks: the schema accepts, the program rejects naming the field", () => {
  it.each(PROGRAM_ONLY)("%s", (...[, config, field]: Row) => {
    expect(schemaCheck(config)).toEqual([]);
    expect(programCheck(config)?.message).toContain(field);
  });
});

describe("the committed schema", () => {
  // the same schema, key order included; the bytes (prettier's formatting) are `schema:config --check`'s
  it("is what the StackConfig type generates (run `npm run schema:config` after changing the types)", () => {
    expect(JSON.stringify(committedSchema, null, 1)).toBe(
      JSON.stringify(buildStackFileSchema(ROOT), null, 1),
    );
  });

  it("has the program's top-level keys, no other", () => {
    const keys = Object.keys(committedSchema.properties.config.properties);
    expect(keys.sort()).toEqual(STACK_CONFIG_KEYS.map((key) => `karmada:${key}`).sort());
  });

  it("offers only defaults its own fields accept (editors insert them on completion)", () => {
    const defaults: { path: string; node: SchemaNode }[] = [];
    walkSchema(committedSchema, (node, path) => {
      if ("default" in node) defaults.push({ path, node });
    });
    expect(defaults.length).toBeGreaterThan(20);
    const invalid = defaults.filter(
      ({ node }) => !ajv.validate({ ...node, definitions: committedSchema.definitions }, node.default),
    );
    expect(invalid.map(({ path, node }) => `${path}: ${JSON.stringify(node.default)}`)).toEqual([]);
  });
});

describe.each(STACK_FILES)("%s", (file) => {
  const text = readFileSync(join(ROOT, file), "utf8");

  it("names the schema on its first line, for the YAML language server", () => {
    expect(text.split("\n")[0]).toBe(MODELINE);
  });

  it("is valid against the schema", () => {
    expect(schemaCheck(parseYaml(text).config)).toEqual([]);
  });
});

describe.each(COMPLETE_STACK_FILES)("%s with its secrets (SSH key, member kubeconfigs) set", (file) => {
  it("is accepted by the schema and the program", () => {
    const config: StackFileConfig = parseYaml(readFileSync(join(ROOT, file), "utf8")).config;
    const members = (config["karmada:members"] as { clusterName: string }[] | undefined) ?? [];
    const withSecrets = {
      ...config,
      "karmada:sshPrivateKey": secure("v1:ssh-key"),
      "karmada:memberKubeconfigs": Object.fromEntries(
        members.map((m) => [m.clusterName, secure("v1:kubeconfig")]),
      ),
    };
    expect(schemaCheck(withSecrets)).toEqual([]);
    expect(programCheck(withSecrets)?.message).toBeUndefined();
  });
});
