import { parseAllDocuments } from "yaml";
import { synthesizeEstate } from "../../../lib/manifests/synth";

describe("synthesizeEstate (plain YAML for GitOps)", () => {
  const result = synthesizeEstate(
    { apiServer: { serviceType: "NodePort", nodePort: 32443 }, components: { search: { enabled: true } } },
    { replicas: 3 },
  );
  const docs = (yaml: string) => parseAllDocuments(yaml).map((d) => d.toJSON());

  it("renders the host-cluster objects in apply order and never a Secret", () => {
    const host = docs(result.hostCluster);
    expect(host[0]).toMatchObject({ kind: "Namespace", metadata: { name: "karmada-system" } });
    const kinds = host.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds.indexOf("StatefulSet/etcd")).toBeLessThan(kinds.indexOf("Deployment/karmada-apiserver"));
    expect(kinds.indexOf("Deployment/karmada-apiserver")).toBeLessThan(
      kinds.indexOf("Deployment/karmada-controller-manager"),
    );
    expect(kinds).toContain("Deployment/karmada-search");
    expect(host.filter((o) => o.kind === "Secret")).toEqual([]);
    expect(result.hostCluster).not.toMatch(/PRIVATE KEY/);
  });

  it("lists every placeholder left for the user to fill", () => {
    const karmada = docs(result.karmadaApiServer);
    expect(karmada.map((o) => o.kind)).toEqual(
      expect.arrayContaining(["APIService", "MutatingWebhookConfiguration", "ConfigMap"]),
    );
    const count = (result.karmadaApiServer.match(/@@karmada:[a-z-]+@@/g) ?? []).length;
    expect(result.placeholders.length).toBe(count);
  });
});
