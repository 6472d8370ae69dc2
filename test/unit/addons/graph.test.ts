import * as k8s from "@pulumi/kubernetes";
import { Addon } from "../../../components/addon";
import { MemberRegistration } from "../../../components/memberRegistration";
import { CERTIFICATES_CHECKSUM_ANNOTATION } from "../../../lib/manifests/workloads/metadata";
import { simulateControllers } from "../members/simulate";
import { buildEstate, Estate } from "../../support/estate";
import { find, Registration, settle } from "../../support/mocks";

jest.setTimeout(60_000);

const addonChildren = (records: Registration[], name: string): Registration[] => {
  const root = records.find((r) => r.type === "karmada:index:Addon" && r.name === name)!;
  const out: Registration[] = [];
  const walk = (urn: string) =>
    records
      .filter((r) => r.parentUrn === urn)
      .forEach((r) => {
        out.push(r);
        walk(r.urn);
      });
  walk(root.urn);
  return out;
};
const key = (r: Registration) =>
  `${r.inputs.kind ?? r.type.split(":").pop()}/${r.inputs.metadata?.namespace ?? ""}/${r.inputs.metadata?.name}`;
const byKey = (rs: Registration[]) =>
  new Map(rs.filter((r) => r.custom && r.type.startsWith("kubernetes:")).map((r) => [key(r), r]));
const through = (r: Registration, p: Registration) => r.provider.startsWith(`${p.urn}::`);

describe("Addon", () => {
  let estate: Estate;
  let records: Registration[];
  let members: { clusterName: string; provider: k8s.Provider; kubeconfig: string }[];

  beforeAll(async () => {
    estate = await buildEstate({ images: { registry: "mirror.local/karmada" }, namespace: "karmada-system" });
    records = estate.records;
    // providers after the mocks are installed (buildEstate installs them)
    members = ["east", "west"].map((c) => ({
      clusterName: c,
      provider: new k8s.Provider(`m-${c}`, { kubeconfig: c }),
      kubeconfig: `kubeconfig-of-${c}`,
    }));
    const cp = estate.controlPlane;
    // the estimator serves registered members only: register both (stand-in token controllers)
    simulateControllers();
    for (const m of members) {
      new MemberRegistration(
        m.clusterName,
        {
          clusterName: m.clusterName,
          mode: "Push",
          apiEndpoint: `https://${m.clusterName}.example:6443`,
          controlPlane: cp,
        },
        { provider: m.provider },
      );
    }
    const addons = [
      new Addon("search", { kind: "search", controlPlane: cp, etcd: estate.etcd }),
      new Addon("metrics", { kind: "metricsAdapter", controlPlane: cp, overrides: { replicas: 3 } }),
      new Addon("desched", { kind: "descheduler", controlPlane: cp }),
      new Addon("estimator", { kind: "schedulerEstimator", controlPlane: cp, members }),
      new Addon("crds", {
        kind: "manifests",
        controlPlane: cp,
        manifests: {
          yaml: [
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gadgets.example.io}\nspec: {group: example.io}",
            "apiVersion: example.io/v1\nkind: Gadget\nmetadata: {name: g1, namespace: default}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: default}\ndata: {password: " +
              Buffer.from("hunter2").toString("base64") +
              "}",
          ].join("\n---\n"),
        },
      }),
      new Addon("mesh", {
        kind: "helm",
        target: "members",
        controlPlane: cp,
        members,
        helm: {
          chart: "istiod",
          repo: "https://istio-release.storage.googleapis.com/charts",
          version: "1.24.0",
          namespace: "istio-system",
          values: { pilot: { replicaCount: 2 } },
        },
      }),
    ];
    await settle(...addons, ...addons.flatMap((a) => a.resources));
    await settle(...addons.flatMap((a) => a.resources));
  });

  it("installs karmada-search with the control plane's manifests, images, Secrets and its APIService", () => {
    const mine = byKey(addonChildren(records, "search"));
    const deployment = mine.get("Deployment/karmada-system/karmada-search")!.inputs;
    const container = deployment.spec.template.spec.containers[0];
    expect(container.image).toBe("mirror.local/karmada/karmada-search:v1.18.2");
    expect(container.args.some((a: string) => a.startsWith("--requestheader-client-ca-file"))).toBe(false);
    expect(container.args).toContain("--etcd-certfile=/etc/karmada/pki/etcd-client.crt");
    // the pod template carries the digest of its certificates (rolls on renewal), never the placeholder
    expect(deployment.spec.template.metadata.annotations[CERTIFICATES_CHECKSUM_ANNOTATION]).toMatch(
      /^[0-9a-f]{64}$/,
    );
    const cert = mine.get("Secret/karmada-system/karmada-search-cert")!;
    expect(Object.keys(cert.inputs.stringData).sort()).toEqual([
      "ca.crt",
      "etcd-ca.crt",
      "etcd-client.crt",
      "etcd-client.key",
      "search.crt",
      "search.key",
    ]);
    expect(cert.secretPaths).toContain("stringData");
    expect(mine.get("Secret/karmada-system/karmada-search-config")!.secretPaths).toContain("stringData");
    const apiService = mine.get("APIService//v1alpha1.search.karmada.io")!;
    expect(through(apiService, find(records, "pulumi:providers:kubernetes", "karmada-karmada"))).toBe(true);
    expect(apiService.inputs.spec.caBundle).toBe(
      Buffer.from("-----BEGIN CERTIFICATE-----\nkarmada-karmada-ca\n-----END CERTIFICATE-----\n").toString(
        "base64",
      ),
    );
    expect(apiService.dependencies).toContain(mine.get("Deployment/karmada-system/karmada-search")!.urn);
  });

  it("installs the metrics adapter with its three metrics APIServices and the replica override", () => {
    const mine = byKey(addonChildren(records, "metrics"));
    expect(mine.get("Deployment/karmada-system/karmada-metrics-adapter")!.inputs.spec.replicas).toBe(3);
    for (const api of [
      "v1beta1.metrics.k8s.io",
      "v1beta1.custom.metrics.k8s.io",
      "v1beta2.custom.metrics.k8s.io",
    ]) {
      expect(mine.get(`APIService//${api}`)).toBeDefined();
    }
    expect(
      byKey(addonChildren(records, "desched")).get("Deployment/karmada-system/karmada-descheduler"),
    ).toBeDefined();
  });

  it("runs one scheduler estimator per member, from that member's kubeconfig, with no edge between members", () => {
    const mine = addonChildren(records, "estimator");
    const objects = byKey(mine);
    for (const c of ["east", "west"]) {
      const secret = objects.get(`Secret/karmada-system/${c}-kubeconfig`)!;
      expect(secret.inputs.stringData).toEqual({ [`${c}-kubeconfig`]: `kubeconfig-of-${c}` });
      expect(secret.secretPaths).toContain("stringData");
      const deployment = objects.get(`Deployment/karmada-system/karmada-scheduler-estimator-${c}`)!;
      expect(deployment.inputs.spec.template.spec.containers[0].image).toBe(
        "mirror.local/karmada/karmada-scheduler-estimator:v1.18.2",
      );
      expect(deployment.inputs.spec.template.spec.containers[0].args).toContain(`--cluster-name=${c}`);
      expect(
        objects.get(`Service/karmada-system/karmada-scheduler-estimator-${c}`)!.inputs.spec.ports[0].port,
      ).toBe(10352);
    }
    const east = new Set(mine.filter((r) => r.name.startsWith("estimator-east")).map((r) => r.urn));
    for (const r of mine.filter((x) => x.name.startsWith("estimator-west"))) {
      expect(r.dependencies.filter((d) => east.has(d))).toEqual([]);
    }
  });

  it("applies generic manifests one object each, CRDs first, Secrets as secrets", () => {
    const objects = byKey(addonChildren(records, "crds"));
    const crd = objects.get("CustomResourceDefinition//gadgets.example.io")!;
    const gadget = objects.get("Gadget/default/g1")!;
    expect(gadget.dependencies).toContain(crd.urn);
    const secret = objects.get("Secret/default/creds")!;
    expect(secret.inputs.stringData).toEqual({ password: "hunter2" });
    expect(secret.secretPaths).toContain("stringData");
    expect(through(gadget, find(records, "pulumi:providers:kubernetes", "karmada-karmada"))).toBe(true);
  });

  it("installs a Helm chart on every member with that member's provider", () => {
    const charts = addonChildren(records, "mesh").filter((r) => r.type === "kubernetes:helm.sh/v4:Chart");
    expect(charts.map((c) => c.name).sort()).toEqual(["mesh-east", "mesh-west"]);
    for (const chart of charts) {
      const member = find(records, "pulumi:providers:kubernetes", `m-${chart.name.slice(5)}`);
      expect(through(chart, member)).toBe(true);
      expect(chart.inputs).toMatchObject({
        chart: "istiod",
        version: "1.24.0",
        namespace: "istio-system",
        repositoryOpts: { repo: "https://istio-release.storage.googleapis.com/charts" },
        values: { pilot: { replicaCount: 2 } },
      });
    }
  });
});
