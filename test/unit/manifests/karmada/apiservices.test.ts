import type { KubeObject } from "../../../../lib/kube/apply";
import {
  clusterApiObjects,
  metricsAdapterApiObjects,
  searchApiObjects,
} from "../../../../lib/manifests/karmada/apiservices";
import { PLACEHOLDERS } from "../../../../lib/manifests/placeholders";
import { ConfigError } from "../../../../lib/validation/errors";
import { testSettings } from "../../../support/settings";
import { KARMADA_MODULE, describeUpstream, upstreamYaml } from "../../../support/upstream";

const settings = testSettings({ namespace: "karmada-host", clusterDomain: "corp.local" });
const find = (objects: KubeObject[], kind: string, name?: string) =>
  objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name)) as any[];

describe("clusterApiObjects", () => {
  it("backs v1alpha1.cluster.karmada.io by an ExternalName Service to the host Service", () => {
    const objects = clusterApiObjects(settings);
    const [service] = find(objects, "Service");
    expect(service.metadata).toEqual({ name: "karmada-aggregated-apiserver", namespace: "karmada-system" });
    expect(service.spec).toEqual({
      type: "ExternalName",
      externalName: "karmada-aggregated-apiserver.karmada-host.svc.corp.local",
    });
    const [apiService] = find(objects, "APIService");
    expect(apiService.metadata.name).toBe("v1alpha1.cluster.karmada.io");
    expect(apiService.spec).toEqual({
      group: "cluster.karmada.io",
      version: "v1alpha1",
      groupPriorityMinimum: 2000,
      versionPriority: 10,
      caBundle: PLACEHOLDERS.caBundle,
      service: { name: service.metadata.name, namespace: service.metadata.namespace, port: 443 },
    });
  });

  it("backs it by Service + Endpoints + one EndpointSlice per IP family in hosts mode", () => {
    const objects = clusterApiObjects(settings, {
      kind: "endpoints",
      addresses: ["10.0.0.1", "fd00::1", "10.0.0.2"],
      port: 7443,
    });
    const [service] = find(objects, "Service");
    expect(service.spec.type).toBe("ClusterIP");
    expect(service.spec.selector).toBeUndefined();
    expect(service.spec.ports).toEqual([{ name: "https", port: 443, targetPort: 7443 }]);
    const [endpoints] = find(objects, "Endpoints");
    expect(endpoints.metadata.name).toBe(service.metadata.name);
    expect(endpoints.subsets[0].addresses.map((a: any) => a.ip)).toEqual(["10.0.0.1", "fd00::1", "10.0.0.2"]);
    expect(endpoints.subsets[0].ports).toEqual([{ name: "https", port: 7443 }]);
    const slices = find(objects, "EndpointSlice");
    expect(slices.map((s) => [s.addressType, s.endpoints.flatMap((e: any) => e.addresses)])).toEqual([
      ["IPv4", ["10.0.0.1", "10.0.0.2"]],
      ["IPv6", ["fd00::1"]],
    ]);
    for (const slice of slices) {
      expect(slice.metadata.namespace).toBe("karmada-system");
      expect(slice.metadata.labels["kubernetes.io/service-name"]).toBe(service.metadata.name);
      expect(slice.ports).toEqual([{ name: "https", port: 7443, protocol: "TCP" }]);
    }
  });

  it.each([
    [
      { kind: "endpoints", addresses: [], port: 443 },
      "invalid aggregatedApiBackend.addresses: no address given (allowed: one or more IP addresses)",
    ],
    [
      { kind: "endpoints", addresses: ["10.0.0.1", "host-a"], port: 443 },
      'invalid aggregatedApiBackend.addresses[1]: "host-a" is not an IP address (allowed: IPv4 or IPv6)',
    ],
    [
      { kind: "endpoints", addresses: ["10.0.0.1"], port: 70000 },
      "invalid aggregatedApiBackend.port: 70000 is out of range (allowed: 1-65535)",
    ],
    [
      { kind: "externalName", host: "Bad_Host" },
      'invalid aggregatedApiBackend.host: "Bad_Host" is not a DNS name (allowed: lower-case DNS name)',
    ],
  ] as const)("rejects backend %j", (backend, message) => {
    expect(() => clusterApiObjects(settings, backend as any)).toThrow(ConfigError);
    expect(() => clusterApiObjects(settings, backend as any)).toThrow(message);
  });
});

describe("optional aggregated APIs", () => {
  it("registers the three metrics APIs on karmada-metrics-adapter", () => {
    const objects = metricsAdapterApiObjects(settings);
    const apiServices = find(objects, "APIService");
    expect(apiServices.map((a) => a.metadata.name).sort()).toEqual([
      "v1beta1.custom.metrics.k8s.io",
      "v1beta1.metrics.k8s.io",
      "v1beta2.custom.metrics.k8s.io",
    ]);
    for (const a of apiServices) {
      expect(a.metadata.name).toBe(`${a.spec.version}.${a.spec.group}`);
      expect(a.spec.service.name).toBe("karmada-metrics-adapter");
      expect(a.spec.caBundle).toBe(PLACEHOLDERS.caBundle);
    }
    expect(find(objects, "Service")[0].spec.externalName).toBe(
      "karmada-metrics-adapter.karmada-host.svc.corp.local",
    );
  });

  it("registers v1alpha1.search.karmada.io on karmada-search", () => {
    const objects = searchApiObjects(settings, { kind: "externalName", host: "search.example.com" });
    expect(find(objects, "APIService", "v1alpha1.search.karmada.io")[0].spec.service.name).toBe(
      "karmada-search",
    );
    expect(find(objects, "Service")[0].spec.externalName).toBe("search.example.com");
  });
});

describeUpstream(`APIServices against upstream ${KARMADA_MODULE.version}`, [KARMADA_MODULE], () => {
  const facts = (a: any) => ({
    name: a.metadata.name,
    group: a.spec.group,
    version: a.spec.version,
    groupPriorityMinimum: a.spec.groupPriorityMinimum,
    versionPriority: a.spec.versionPriority,
    service: a.spec.service.name,
  });
  it.each([
    ["karmada-aggregated-apiserver-apiservice.yaml", () => clusterApiObjects(settings)],
    ["karmada-metrics-adapter-apiservice.yaml", () => metricsAdapterApiObjects(settings)],
    ["karmada-search-apiservice.yaml", () => searchApiObjects(settings)],
  ])("%s: same groups, versions, priorities and backing Service", (file, build) => {
    const theirs = upstreamYaml(KARMADA_MODULE, `artifacts/deploy/${file}`).filter(
      (d) => d.kind === "APIService",
    );
    const sort = (list: any[]) => list.map(facts).sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(sort(find(build(), "APIService"))).toEqual(sort(theirs));
  });
});
