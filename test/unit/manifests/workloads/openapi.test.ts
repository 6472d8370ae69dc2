import { OPTIONAL_COMPONENTS } from "../../../../lib/catalog";
import { hostWorkloadManifests } from "../../../../lib/manifests/workloads";
import {
  KubernetesSchema,
  SPEC_PATH_ENV,
  describeWithSchema,
  kubernetesSchema,
  kubernetesSpecPath,
} from "../../../support/openapi";
import { SettingsOverrides, testSettings } from "../../../support/settings";

let schema: KubernetesSchema;
// loaded in the suites, not at import: without Go (PULUMI_KARMADA_NO_GO=1) they are skipped instead
const loadSchema = () => beforeAll(() => (schema = kubernetesSchema()));
const optional = (settings: object) => Object.fromEntries(OPTIONAL_COMPONENTS.map((c) => [c, settings]));

const VARIANTS: [string, SettingsOverrides][] = [
  ["defaults", {}],
  ["all components, HA", { components: optional({ enabled: true, replicas: 3 }) }],
  ["NodePort", { apiServer: { serviceType: "NodePort", nodePort: 32443 } }],
  [
    "LoadBalancer with class and annotations",
    {
      apiServer: {
        serviceType: "LoadBalancer",
        loadBalancerClass: "example.com/internal",
        serviceAnnotations: { "service.beta.kubernetes.io/aws-load-balancer-internal": "true" },
      },
    },
  ],
  [
    "tuned components, test bed",
    {
      awaitWorkloads: false,
      featureGates: { Failover: true },
      components: {
        "karmada-apiserver": {
          replicas: 2,
          resources: { requests: { cpu: "1", memory: "2Gi" }, limits: { memory: "4Gi" } },
          labels: { tier: "control-plane" },
          annotations: { "example.com/owner": "ops" },
          extraArgs: { v: "4" },
          priorityClassName: "",
        },
      },
    },
  ],
];

describeWithSchema("host workloads validate against the Kubernetes OpenAPI schema", () => {
  loadSchema();
  it.each(VARIANTS)("%s", (_, overrides) => {
    const objs = Object.values(hostWorkloadManifests(testSettings(overrides))).flat();
    expect(objs.length).toBeGreaterThan(0);
    expect(schema.problemsOfAll(objs)).toEqual([]);
  });
});

// The validator itself: a check that accepts anything would make the tests above meaningless.
describeWithSchema("the OpenAPI validator", () => {
  loadSchema();
  const deployment = (spec: object, metadata: object = { name: "x" }) => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata,
    spec: {
      selector: { matchLabels: { a: "b" } },
      template: { spec: { containers: [{ name: "c", ...spec }] } },
    },
  });

  it("accepts a minimal valid object", () => {
    expect(schema.problems(deployment({ image: "busybox" }))).toEqual([]);
  });

  it("rejects unknown fields in closed objects", () => {
    expect(schema.problems(deployment({ imagePullPolicyy: "Always" })).join()).toMatch(/imagePullPolicyy/);
    expect(schema.problems(deployment({}, { name: "x", labelz: {} })).join()).toMatch(/labelz/);
  });

  it("accepts an int-or-string as a number or a string, nothing else", () => {
    const probe = (port: unknown) => deployment({ livenessProbe: { httpGet: { port } } });
    expect(schema.problems(probe(8080))).toEqual([]);
    expect(schema.problems(probe("http"))).toEqual([]);
    expect(schema.problems(probe(true))).not.toEqual([]);
  });

  it("checks quantities and integer types", () => {
    expect(schema.problems(deployment({ resources: { limits: { cpu: "500m", memory: "1Gi" } } }))).toEqual(
      [],
    );
    expect(schema.problems(deployment({ resources: { limits: { cpu: "half" } } }))).not.toEqual([]);
    expect(schema.problems(deployment({ ports: [{ containerPort: "80" }] }))).not.toEqual([]);
    expect(schema.problems(deployment({ ports: [{ containerPort: 2 ** 31 }] }))).not.toEqual([]);
  });

  it("enforces required fields", () => {
    expect(schema.problems(deployment({ ports: [{ name: "p" }] })).join()).toMatch(/containerPort/);
  });

  it("rejects kinds the target version does not have", () => {
    expect(
      schema.problems({ apiVersion: "batch/v1beta1", kind: "CronJob", metadata: { name: "x" } }),
    ).toEqual(["CronJob/x: no schema for apiVersion batch/v1beta1 kind CronJob in Kubernetes v1.35.2"]);
  });
});

describe("the OpenAPI schema's location", () => {
  it("fails loudly, saying how to get the schema, when it is missing", () => {
    const saved = process.env[SPEC_PATH_ENV];
    process.env[SPEC_PATH_ENV] = "/nonexistent/swagger.json";
    try {
      expect(() => kubernetesSpecPath("v1.35.2")).toThrow(
        /go mod download -json k8s\.io\/kubernetes@v1\.35\.2/,
      );
    } finally {
      if (saved === undefined) delete process.env[SPEC_PATH_ENV];
      else process.env[SPEC_PATH_ENV] = saved;
    }
  });
});
