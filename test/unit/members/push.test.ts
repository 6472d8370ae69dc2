import { find, Registration } from "../../support/mocks";
import {
  buildMemberEstate,
  childrenOf,
  componentOf,
  MemberEstate,
  objectsOf,
  through,
  transitiveDependencies,
} from "./estate";
import { simulatedMemberCa, simulatedToken } from "./simulate";

describe("MemberRegistration, push mode (karmadactl join)", () => {
  let estate: MemberEstate;
  let mine: Registration[];
  let objects: Map<string, Registration>;
  let karmada: Registration;
  let member: Registration;

  beforeAll(async () => {
    estate = await buildMemberEstate([
      {
        clusterName: "edge-1",
        mode: "Push",
        apiEndpoint: "https://edge-1.example.com:6443",
        provider: "aws",
        region: "eu-west-1",
        zones: ["eu-west-1a", "eu-west-1b"],
        taints: [{ key: "example.com/dedicated", value: "gpu", effect: "NoSchedule" }],
        proxyURL: "socks5://proxy.example.com:1080",
      },
      {
        clusterName: "edge-2",
        mode: "Push",
        apiEndpoint: "https://edge-2.example.com:6443",
        caBundle: "-----BEGIN CERTIFICATE-----\nload-balancer-ca\n-----END CERTIFICATE-----\n",
        insecureSkipTLSVerification: true,
        credentialsNamespace: "karmada-cluster-edge-2",
      },
    ]);
    mine = childrenOf(estate.records, componentOf(estate.records, "edge-1"));
    objects = objectsOf(mine);
    karmada = find(estate.records, "pulumi:providers:kubernetes", "karmada-karmada");
    member = find(estate.records, "pulumi:providers:kubernetes", "member-edge-1");
  });

  it("creates in the member exactly what karmadactl join creates, through the member's provider", () => {
    const expected = [
      "Namespace//karmada-cluster",
      "ServiceAccount/karmada-cluster/karmada-edge-1",
      "ServiceAccount/karmada-cluster/karmada-impersonator",
      "ClusterRole//karmada-controller-manager:karmada-edge-1",
      "ClusterRoleBinding//karmada-controller-manager:karmada-edge-1",
      "Secret/karmada-cluster/karmada-edge-1",
      "Secret/karmada-cluster/karmada-impersonator",
    ];
    for (const key of expected) {
      const obj = objects.get(key);
      expect(obj).toBeDefined();
      expect(through(obj!, member)).toBe(true);
      expect(obj!.inputs.metadata.labels).toEqual({ "karmada.io/system": "true" });
    }
    const binding = objects.get("ClusterRoleBinding//karmada-controller-manager:karmada-edge-1")!.inputs;
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "karmada-edge-1", namespace: "karmada-cluster" },
    ]);
    expect(objects.get("ClusterRole//karmada-controller-manager:karmada-edge-1")!.inputs.rules).toEqual([
      { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
      { nonResourceURLs: ["*"], verbs: ["get"] },
    ]);
    const token = objects.get("Secret/karmada-cluster/karmada-edge-1")!.inputs;
    expect(token.type).toBe("kubernetes.io/service-account-token");
    expect(token.metadata.annotations["kubernetes.io/service-account.name"]).toBe("karmada-edge-1");
    expect(token.metadata.annotations["pulumi.com/waitFor"]).toBe("jsonpath={.data.token}");
    expect(token.data ?? token.stringData).toBeUndefined();
  });

  it("copies the member tokens into Karmada-side Secrets, as secrets, through the Karmada provider", () => {
    const credential = objects.get("Secret/karmada-cluster/edge-1")!;
    const impersonator = objects.get("Secret/karmada-cluster/edge-1-impersonator")!;
    for (const s of [credential, impersonator]) {
      expect(through(s, karmada)).toBe(true);
      expect(s.secretPaths).toContain("stringData");
      expect(s.additionalSecretOutputs).toEqual(expect.arrayContaining(["data", "stringData"]));
    }
    expect(credential.inputs.stringData).toEqual({
      token: simulatedToken("edge-1-member-token-karmada-edge-1"),
      caBundle: simulatedMemberCa(objects.get("Secret/karmada-cluster/karmada-edge-1")!.provider),
    });
    expect(impersonator.inputs.stringData).toEqual({
      token: simulatedToken("edge-1-member-token-karmada-impersonator"),
    });
  });

  it("uses the caBundle override instead of the member CA when given", () => {
    const other = objectsOf(childrenOf(estate.records, componentOf(estate.records, "edge-2")));
    expect(other.get("Secret/karmada-cluster/edge-2")!.inputs.stringData.caBundle).toContain(
      "load-balancer-ca",
    );
    expect(other.get("Cluster//edge-2")!.inputs.spec.insecureSkipTLSVerification).toBe(true);
  });

  it("keeps a registration's member-side accounts and tokens in its credentialsNamespace when given; Karmada's side stays in karmada-cluster", () => {
    const other = objectsOf(childrenOf(estate.records, componentOf(estate.records, "edge-2")));
    const edge2 = find(estate.records, "pulumi:providers:kubernetes", "member-edge-2");
    const memberSide = [...other.keys()].filter(
      (key) =>
        /^(Namespace|ServiceAccount|Secret|ClusterRoleBinding)\//.test(key) &&
        through(other.get(key)!, edge2),
    );
    expect(memberSide.sort()).toEqual([
      "ClusterRoleBinding//karmada-controller-manager:karmada-edge-2",
      "Namespace//karmada-cluster-edge-2",
      "Secret/karmada-cluster-edge-2/karmada-edge-2",
      "Secret/karmada-cluster-edge-2/karmada-impersonator",
      "ServiceAccount/karmada-cluster-edge-2/karmada-edge-2",
      "ServiceAccount/karmada-cluster-edge-2/karmada-impersonator",
    ]);
    expect(
      other.get("ClusterRoleBinding//karmada-controller-manager:karmada-edge-2")!.inputs.subjects,
    ).toEqual([{ kind: "ServiceAccount", name: "karmada-edge-2", namespace: "karmada-cluster-edge-2" }]);
    expect(other.get("Cluster//edge-2")!.inputs.spec.secretRef).toEqual({
      namespace: "karmada-cluster",
      name: "edge-2",
    });
    expect(other.get("Secret/karmada-cluster/edge-2-impersonator")).toBeDefined();
  });

  it("declares the Cluster object with every cluster field, the secret references and the member's id", () => {
    const cluster = objects.get("Cluster//edge-1")!;
    expect(through(cluster, karmada)).toBe(true);
    expect(cluster.inputs.apiVersion).toBe("cluster.karmada.io/v1alpha1");
    expect(cluster.inputs.spec).toEqual({
      syncMode: "Push",
      apiEndpoint: "https://edge-1.example.com:6443",
      id: "uid-edge-1-member-kube-system",
      secretRef: { namespace: "karmada-cluster", name: "edge-1" },
      impersonatorSecretRef: { namespace: "karmada-cluster", name: "edge-1-impersonator" },
      proxyURL: "socks5://proxy.example.com:1080",
      provider: "aws",
      region: "eu-west-1",
      zones: ["eu-west-1a", "eu-west-1b"],
      taints: [{ key: "example.com/dedicated", value: "gpu", effect: "NoSchedule" }],
    });
  });

  it("makes the Cluster wait for the Cluster APIService and depend on every credential (so it is deleted first)", () => {
    const cluster = objects.get("Cluster//edge-1")!;
    const apiService = objectsOf(estate.records).get("APIService//v1alpha1.cluster.karmada.io")!;
    expect(cluster.dependencies).toContain(apiService.urn);
    for (const r of mine.filter((x) => x.custom && x !== cluster && x.type.startsWith("kubernetes:"))) {
      expect(transitiveDependencies(estate.records, cluster).has(r.urn)).toBe(true);
    }
  });

  it("never sends a token, key or kubeconfig outside a secret input", () => {
    const tokens = mine
      .filter((r) => r.type === "kubernetes:core/v1:Secret")
      .map((r) => simulatedToken(r.name));
    const leaks: string[] = [];
    const scan = (value: unknown, path: string, r: Registration) => {
      if (typeof value === "string") {
        const sensitive = /PRIVATE KEY|client-key-data|sa-token-/.test(value) || tokens.includes(value);
        const covered = r.secretPaths.some(
          (p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`),
        );
        if (sensitive && !covered) leaks.push(`${r.type} ${r.name} ${path}`);
      } else if (value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) scan(v, path ? `${path}.${k}` : k, r);
      }
    };
    for (const r of estate.records) scan(r.inputs, "", r);
    expect(leaks).toEqual([]);
  });

  it("keeps member-side objects out of the Karmada provider and Karmada-side objects out of the member", () => {
    for (const r of mine.filter((x) => x.custom && x.type.startsWith("kubernetes:"))) {
      const side = r.name.startsWith("edge-1-member-") ? member : karmada;
      expect(through(r, side)).toBe(true);
    }
  });
});
