import { CORE_COMPONENTS, OPTIONAL_COMPONENTS } from "../../../lib/catalog/components";
import { FIXTURE_CRD_SOURCE, kubeObjects } from "../../support/estate";
import { isSecret } from "../../support/mocks";
import { runProgram } from "../../support/program";

describe("examples/containerized (imports the package by name, like an outside project)", () => {
  it("registers every object of a containerized control plane", async () => {
    const { records, exports } = await runProgram(
      "../../examples/containerized",
      { "project:crds": FIXTURE_CRD_SOURCE, "project:kubeconfig": "apiVersion: v1\nkind: Config\n" },
      ["project:kubeconfig"],
    );
    const objects = kubeObjects(records);
    const ns = "karmada-system";
    const components = [...CORE_COMPONENTS, ...OPTIONAL_COMPONENTS];
    const expected = [
      `Namespace//${ns}`,
      `StatefulSet/${ns}/etcd`,
      `Service/${ns}/etcd`,
      `Service/${ns}/etcd-client`,
      `Secret/${ns}/etcd-cert`,
      ...components.map((c) => `Deployment/${ns}/${c}`),
      ...components.map((c) => `Secret/${ns}/${c}-cert`),
      ...components.filter((c) => c !== "karmada-apiserver").map((c) => `Secret/${ns}/${c}-config`),
      `Service/${ns}/karmada-apiserver`,
      `Service/${ns}/karmada-aggregated-apiserver`,
      `Service/${ns}/karmada-webhook`,
      `Service/${ns}/karmada-metrics-adapter`,
      `Service/${ns}/karmada-search`,
      // inside karmada-apiserver
      "Namespace//karmada-cluster",
      "MutatingWebhookConfiguration//mutating-config",
      "ValidatingWebhookConfiguration//validating-config",
      "APIService//v1alpha1.cluster.karmada.io",
      "APIService//v1alpha1.search.karmada.io",
      "APIService//v1beta1.metrics.k8s.io",
      "ClusterRole//karmada-view",
      "ClusterRole//karmada-edit",
      "ConfigMap/kube-public/cluster-info",
      "Namespace//demo",
    ];
    const missing = expected.filter((key) => !objects.has(key));
    expect(missing).toEqual([]);
    expect(
      [...objects.keys()].filter((k) => k.startsWith("CustomResourceDefinition/")).length,
    ).toBeGreaterThan(0);
    expect(await isSecret(exports.kubeconfig as any)).toBe(true);
  });
});
