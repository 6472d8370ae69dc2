import { karmadaApiObjects } from "../../../../lib/manifests/karmada";
import { findPlaceholders, PLACEHOLDERS } from "../../../../lib/manifests/placeholders";
import { testSettings } from "../../../support/settings";

const names = (objects: { kind: string; metadata: { name: string } }[]) =>
  objects.map((o) => `${o.kind}/${o.metadata.name}`);

describe("karmadaApiObjects", () => {
  const settings = testSettings({ namespace: "karmada-host" });

  it("groups the objects in install order with core APIs only by default", () => {
    const groups = karmadaApiObjects(settings);
    expect(Object.keys(groups)).toEqual(["namespaces", "crdDependents", "apiServices", "rbac", "bootstrap"]);
    expect(names(groups.namespaces)).toEqual(["Namespace/karmada-system", "Namespace/karmada-cluster"]);
    expect(names(groups.crdDependents)).toEqual([
      "MutatingWebhookConfiguration/mutating-config",
      "ValidatingWebhookConfiguration/validating-config",
    ]);
    expect(names(groups.apiServices).filter((n) => n.startsWith("APIService/"))).toEqual([
      "APIService/v1alpha1.cluster.karmada.io",
    ]);
    expect(groups.bootstrap.some((o) => o.metadata.name === "cluster-info")).toBe(true);
  });

  it("adds metrics and search APIs when those components are enabled", () => {
    const enabled = testSettings({
      components: { "karmada-metrics-adapter": { enabled: true }, "karmada-search": { enabled: true } },
    });
    const apiServices = names(karmadaApiObjects(enabled).apiServices).filter((n) =>
      n.startsWith("APIService/"),
    );
    expect(apiServices).toEqual(
      expect.arrayContaining(["APIService/v1beta1.metrics.k8s.io", "APIService/v1alpha1.search.karmada.io"]),
    );
    expect(apiServices).toHaveLength(5);
  });

  it("passes hosts-mode endpoints through and can leave out the pull-mode bootstrap", () => {
    const groups = karmadaApiObjects(settings, {
      webhookBaseUrl: "https://10.0.0.5:8443",
      backends: { aggregatedApiserver: { kind: "endpoints", addresses: ["10.0.0.5"], port: 7443 } },
      pullModeBootstrap: false,
    });
    expect(
      (groups.crdDependents[0] as any).webhooks[0].clientConfig.url.startsWith("https://10.0.0.5:8443/"),
    ).toBe(true);
    expect(groups.apiServices.map((o) => o.kind)).toContain("EndpointSlice");
    expect(groups.bootstrap).toEqual([]);
  });

  it("needs only the CA bundle and API server URL placeholders", () => {
    const all = Object.values(karmadaApiObjects(settings)).flat();
    const tokens = new Set(all.flatMap((o) => findPlaceholders(o)).map((u) => u.token));
    expect([...tokens].sort()).toEqual([PLACEHOLDERS.apiServerUrl, PLACEHOLDERS.caBundle].sort());
  });

  it("never emits the same object twice", () => {
    const all = Object.values(karmadaApiObjects(settings)).flat();
    const keys = all.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
