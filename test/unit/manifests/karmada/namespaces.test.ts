import { karmadaNamespaces } from "../../../../lib/manifests/karmada/namespaces";

describe("karmadaNamespaces", () => {
  it("creates karmada-system and karmada-cluster, labelled as Karmada system namespaces", () => {
    const objects = karmadaNamespaces() as any[];
    expect(objects.map((o) => [o.kind, o.metadata.name])).toEqual([
      ["Namespace", "karmada-system"],
      ["Namespace", "karmada-cluster"],
    ]);
    for (const ns of objects) expect(ns.metadata.labels).toEqual({ "karmada.io/system": "true" });
  });

  it("leaves kube-public to karmada-apiserver, which creates it", () => {
    expect(karmadaNamespaces().map((o) => o.metadata.name)).not.toContain("kube-public");
  });
});
