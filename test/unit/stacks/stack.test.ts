import { FIXTURE_CRD_SOURCE, kubeObjects } from "../../support/estate";
import { Registration } from "../../support/mocks";
import { testKubeconfig } from "../../support/kubeconfig";
import { runProgram } from "../../support/program";
import { simulateControllers } from "../members/simulate";

describe("stacks/ program (config-driven)", () => {
  let records: Registration[];
  beforeAll(async () => {
    ({ records } = await runProgram(
      "../../stacks",
      {
        "karmada:hostKubeconfig": testKubeconfig("host"),
        "karmada:etcd": { inCluster: { replicas: 3 } },
        "karmada:controlPlane": {
          apiServer: { serviceType: "NodePort", externalEndpoint: "10.0.0.5:32443" },
        },
        "karmada:crds": FIXTURE_CRD_SOURCE,
        "karmada:members": [
          { clusterName: "edge-1", mode: "Push", apiEndpoint: "https://10.0.1.1:6443" },
          { clusterName: "edge-2", mode: "Pull", apiEndpoint: "https://10.0.2.1:6443" },
          // a second Cluster on edge-1's API server, its credentials apart, edge-1's kubeconfig
          {
            clusterName: "edge-1b",
            mode: "Push",
            apiEndpoint: "https://10.0.1.1:6443",
            credentialsNamespace: "karmada-cluster-edge-1b",
          },
        ],
        "karmada:memberKubeconfigs": {
          "edge-1": testKubeconfig("edge-1"),
          "edge-2": testKubeconfig("edge-2"),
        },
        "karmada:addons": [
          { name: "descheduler", kind: "descheduler" },
          { name: "estimator", kind: "schedulerEstimator" },
          {
            name: "team-namespace",
            kind: "manifests",
            target: "members",
            manifests: {
              objects: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } }],
            },
          },
        ],
      },
      ["karmada:hostKubeconfig", "karmada:memberKubeconfigs"],
      // the members' token controllers and Karmada's CSR signer, which mocks do not run
      simulateControllers,
    ));
  });

  it("registers the members, push and pull, each API server through one provider of its own", () => {
    const clusters = records.filter((r) => r.type === "kubernetes:cluster.karmada.io/v1alpha1:Cluster");
    expect(clusters.map((c) => [c.inputs.metadata.name, c.inputs.spec?.syncMode]).sort()).toEqual([
      ["edge-1", "Push"],
      ["edge-1b", "Push"],
      ["edge-2", "Pull"],
    ]);
    const providers = records.filter((r) => r.type === "pulumi:providers:kubernetes").map((r) => r.name);
    expect(providers.filter((p) => p.startsWith("member-")).sort()).toEqual([
      "member-edge-1",
      "member-edge-2",
    ]);
    // edge-1b's member-side objects go through edge-1's provider, in its own namespace
    const edge1 = records.find(
      (r) => r.type === "pulumi:providers:kubernetes" && r.name === "member-edge-1",
    )!;
    const edge1bTokens = records.filter(
      (r) => r.type === "kubernetes:core/v1:Secret" && r.name.startsWith("edge-1b-member-token-"),
    );
    expect(edge1bTokens.map((r) => r.inputs.metadata.namespace)).toEqual([
      "karmada-cluster-edge-1b",
      "karmada-cluster-edge-1b",
    ]);
    for (const r of edge1bTokens) expect(r.provider.startsWith(`${edge1.urn}::`)).toBe(true);
    // one kube-system read per server: edge-1b's Cluster takes its id from edge-1's (mocks name the
    // simulated UID after the read)
    const clusterId = (name: string) =>
      records.find(
        (r) => r.type === "kubernetes:cluster.karmada.io/v1alpha1:Cluster" && r.inputs.metadata.name === name,
      )!.inputs.spec.id;
    expect(clusterId("edge-1b")).toBe("uid-edge-1-member-kube-system");
    expect(clusterId("edge-1")).toBe("uid-edge-1-member-kube-system");
    for (const p of records.filter((r) => r.name.startsWith("member-")))
      expect(p.secretPaths).toContain("kubeconfig");
  });

  it("installs the descheduler, and a generic manifest addon once on every member API server", () => {
    const objects = kubeObjects(records);
    expect(objects.get("Deployment/karmada-system/karmada-descheduler")).toBeDefined();
    const teamNamespaces = records.filter(
      (r) => r.type === "kubernetes:core/v1:Namespace" && r.inputs.metadata?.name === "team-a",
    );
    expect(teamNamespaces.map((r) => r.provider.split("::").pop()?.split("::")[0]).length).toBe(2);
    expect(new Set(teamNamespaces.map((r) => r.provider)).size).toBe(2);
  });

  it("gives the scheduler estimator every member Cluster with its kubeconfig, kept secret", () => {
    const objects = kubeObjects(records);
    for (const cluster of ["edge-1", "edge-1b", "edge-2"]) {
      expect(objects.get(`Deployment/karmada-system/karmada-scheduler-estimator-${cluster}`)).toBeDefined();
    }
    const kubeconfigSecrets = records.filter(
      (r) =>
        r.type === "kubernetes:core/v1:Secret" &&
        /estimator/.test(r.name) &&
        JSON.stringify(r.inputs).includes("https://edge-"),
    );
    expect(kubeconfigSecrets.length).toBe(3);
    for (const secret of kubeconfigSecrets) expect(secret.secretPaths.length).toBeGreaterThan(0);
  });

  it("checks secret settings before anything registers, never quoting them", async () => {
    const { validateStackSecrets } = await import("../../../stacks/config");
    const members = [{ clusterName: "edge-1", mode: "Push" as const, apiEndpoint: "https://10.0.1.1:6443" }];
    const attempt = (plain: { sshPrivateKey?: string; memberKubeconfigs?: string }) => {
      try {
        validateStackSecrets(plain, { members });
        return undefined;
      } catch (error) {
        return error as Error;
      }
    };
    const missing = attempt({ memberKubeconfigs: JSON.stringify({ "edge-l": "secret-kubeconfig" }) });
    expect(missing?.message).toMatch(/karmada:memberKubeconfigs\.edge-1: is missing/);
    expect(missing?.message).toMatch(/karmada:memberKubeconfigs\.edge-l: belongs to no member/);
    expect(missing?.message).not.toContain("secret-kubeconfig");
    const publicKey = attempt({
      sshPrivateKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA user@host",
      memberKubeconfigs: JSON.stringify({ "edge-1": testKubeconfig("edge-1") }),
    });
    expect(publicKey?.message).toMatch(/invalid karmada:sshPrivateKey: .*public key/);
    expect(publicKey?.message).not.toContain("AAAAC3NzaC1lZDI1NTE5AAAAIA");
    expect(
      attempt({ memberKubeconfigs: JSON.stringify({ "edge-1": testKubeconfig("edge-1") }) }),
    ).toBeUndefined();
    // a member on another member's API server may go without an entry of its own; one elsewhere may not
    const shared = [
      ...members,
      { clusterName: "edge-1b", mode: "Push" as const, apiEndpoint: "https://10.0.1.1:6443" },
      { clusterName: "edge-3", mode: "Push" as const, apiEndpoint: "https://10.0.3.1:6443" },
    ];
    const one = JSON.stringify({ "edge-1": testKubeconfig("edge-1") });
    let error: Error | undefined;
    try {
      validateStackSecrets({ memberKubeconfigs: one }, { members: shared });
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(/karmada:memberKubeconfigs\.edge-3: is missing/);
    expect(error?.message).not.toMatch(/edge-1b/);
  });

  it("rejects unknown stack settings by name", async () => {
    const { parseStackConfig } = await import("../../../stacks/config");
    expect(() => parseStackConfig({ controlplane: {} })).toThrow(
      /invalid karmada:controlplane: unknown stack setting "controlplane" \(allowed: hostKubeconfig/,
    );
    expect(() => parseStackConfig({ members: [{ clusterName: "a" }, { clusterName: "a" }] })).toThrow(
      /karmada:members/,
    );
  });
});
