import { certificateStatuses, dependencyGraph, readyConditions } from "../../../console/server/estates";

const STACK = "urn:pulumi:dev::estate::pulumi:pulumi:Stack::estate-dev";
const urn = (type: string, name: string, parents = "") =>
  `urn:pulumi:dev::estate::${parents}${type}::${name}`;

describe("estate summaries", () => {
  it("certificates soonest first, whole days left, expired ones negative, bad dates left out", () => {
    const now = Date.parse("2026-11-29T12:00:00Z");
    expect(
      certificateStatuses(
        {
          ca: "2036-11-26T00:00:00Z",
          apiserver: "2026-12-09T12:00:00Z",
          old: "2026-11-27T12:00:00Z",
          broken: "not a date",
          number: 5,
        },
        now,
      ),
    ).toEqual([
      { name: "old", notAfter: "2026-11-27T12:00:00Z", daysLeft: -2 },
      { name: "apiserver", notAfter: "2026-12-09T12:00:00Z", daysLeft: 10 },
      { name: "ca", notAfter: "2036-11-26T00:00:00Z", daysLeft: 3649 },
    ]);
    expect(certificateStatuses(undefined, now)).toEqual([]);
  });

  it("each Cluster's Ready condition as Karmada reports it", () => {
    const list = {
      items: [
        {
          metadata: { name: "m1" },
          status: { conditions: [{ type: "Ready", status: "True", reason: "ClusterReady" }] },
        },
        {
          metadata: { name: "m2" },
          status: { conditions: [{ type: "Ready", status: "False", reason: "ClusterNotReachable" }] },
        },
        { metadata: { name: "m3" }, status: {} },
      ],
    };
    expect([...readyConditions(list)]).toEqual([
      ["m1", { ready: "True", reason: "ClusterReady" }],
      ["m2", { ready: "False", reason: "ClusterNotReachable" }],
      ["m3", { ready: "Unknown" }],
    ]);
    expect(readyConditions({ kind: "Status" }).size).toBe(0);
  });

  it("the dependency picture: top-level components, an edge when anything under one depends on anything under another", () => {
    const etcd = urn("karmada:index:EtcdCluster", "etcd");
    const karmada = urn("karmada:index:KarmadaControlPlane", "karmada");
    const member = urn("karmada:index:MemberRegistration", "m1");
    const etcdPod = urn("kubernetes:apps/v1:StatefulSet", "etcd-sts", "karmada:index:EtcdCluster$");
    const apiserver = urn(
      "kubernetes:apps/v1:Deployment",
      "karmada-apiserver",
      "karmada:index:KarmadaControlPlane$",
    );
    const cluster = urn(
      "kubernetes:cluster.karmada.io/v1alpha1:Cluster",
      "m1-karmada",
      "karmada:index:MemberRegistration$",
    );
    const provider = urn("pulumi:providers:kubernetes", "host");
    const graph = dependencyGraph([
      { urn: STACK, type: "pulumi:pulumi:Stack" },
      { urn: provider, type: "pulumi:providers:kubernetes", parent: STACK },
      { urn: etcd, type: "karmada:index:EtcdCluster", parent: STACK },
      { urn: karmada, type: "karmada:index:KarmadaControlPlane", parent: STACK },
      { urn: member, type: "karmada:index:MemberRegistration", parent: STACK },
      { urn: etcdPod, type: "kubernetes:apps/v1:StatefulSet", parent: etcd, dependencies: [provider] },
      { urn: apiserver, type: "kubernetes:apps/v1:Deployment", parent: karmada, dependencies: [etcdPod] },
      {
        urn: cluster,
        type: "Cluster",
        parent: member,
        propertyDependencies: { spec: [apiserver] },
        dependencies: [],
      },
    ]);
    expect(graph.nodes.map((n) => n.name)).toEqual(["etcd", "karmada", "m1"]);
    expect(graph.edges).toEqual([
      { from: karmada, to: etcd },
      { from: member, to: karmada },
    ]);
  });
});
