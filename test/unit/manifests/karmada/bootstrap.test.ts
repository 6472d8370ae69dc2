import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOOTSTRAP, pullModeBootstrap } from "../../../../lib/manifests/karmada/bootstrap";
import { findPlaceholders, PLACEHOLDERS, substitute } from "../../../../lib/manifests/placeholders";
import { upstreamKarmadaDir, upstreamYaml } from "../../crds/upstream";

const objects = pullModeBootstrap() as any[];
const get = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const subjectsOf = (name: string) => get("ClusterRoleBinding", name).subjects;
/** kubectl (client-go) is the real parser of kubeconfigs; the test bed installs it. */
const withKubectl = spawnSync("kubectl", ["version", "--client"]).status === 0 ? it : it.skip;

describe("pullModeBootstrap", () => {
  const values = {
    [PLACEHOLDERS.apiServerUrl]: "https://203.0.113.7:32443",
    [PLACEHOLDERS.caBundle]: "Q0EgUEVN",
  };
  const clusterInfo = get("ConfigMap", "cluster-info");

  it("publishes kube-public/cluster-info whose kubeconfig embeds the URL and CA placeholders", () => {
    expect(clusterInfo.metadata.namespace).toBe("kube-public");
    expect(findPlaceholders(clusterInfo).map((u) => [u.path, u.token, u.whole])).toEqual([
      ["data.kubeconfig", PLACEHOLDERS.apiServerUrl, false],
      ["data.kubeconfig", PLACEHOLDERS.caBundle, false],
    ]);
  });

  withKubectl(
    "yields, once substituted, a kubeconfig kubectl reads as one unnamed cluster with that URL and CA",
    () => {
      const resolved = substitute(clusterInfo, values, { interpolate: (parts) => parts.join("") }) as any;
      const dir = mkdtempSync(join(tmpdir(), "cluster-info-"));
      try {
        const file = join(dir, "kubeconfig");
        writeFileSync(file, resolved.data.kubeconfig);
        const view = JSON.parse(
          execFileSync("kubectl", ["config", "view", "--raw", "-o", "json", "--kubeconfig", file], {
            encoding: "utf8",
          }),
        );
        expect(view.clusters).toEqual([
          {
            name: "",
            cluster: {
              server: values[PLACEHOLDERS.apiServerUrl],
              "certificate-authority-data": values[PLACEHOLDERS.caBundle],
            },
          },
        ]);
        expect(view.users ?? []).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("lets only anonymous users read cluster-info, and nothing else in kube-public", () => {
    const role = get("Role", BOOTSTRAP.clusterInfoReader);
    expect(role.metadata.namespace).toBe("kube-public");
    expect(role.rules).toEqual([
      { apiGroups: [""], resources: ["configmaps"], resourceNames: ["cluster-info"], verbs: ["get"] },
    ]);
    const binding = get("RoleBinding", BOOTSTRAP.clusterInfoReader);
    expect(binding.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: role.metadata.name,
    });
    expect(binding.subjects).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:anonymous" },
    ]);
  });

  it("binds bootstrap tokens to CSR creation and auto-approval, agents to self-renewal", () => {
    const tokenGroup = [
      {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "Group",
        name: "system:bootstrappers:karmada:default-cluster-token",
      },
    ];
    expect(subjectsOf("system:karmada:agent-bootstrap")).toEqual(tokenGroup);
    expect(get("ClusterRoleBinding", "system:karmada:agent-bootstrap").roleRef.name).toBe(
      "system:node-bootstrapper",
    );
    expect(subjectsOf("system:karmada:agent-autoapprove-bootstrap")).toEqual(tokenGroup);
    expect(subjectsOf("system:karmada:agent-autoapprove-certificate-rotation")).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:karmada:agents" },
    ]);
    expect(subjectsOf("system:karmada:agent-rbac-generator")).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:karmada:agent:rbac-generator" },
    ]);
  });

  it("binds only roles that exist here or are built into kube-apiserver", () => {
    const builtIn = new Set(["system:node-bootstrapper"]);
    const ours = new Set(objects.filter((o) => o.kind === "ClusterRole").map((o) => o.metadata.name));
    for (const binding of objects.filter((o) => o.kind === "ClusterRoleBinding")) {
      expect(ours.has(binding.roleRef.name) || builtIn.has(binding.roleRef.name)).toBe(true);
    }
  });
});

const upstream = upstreamKarmadaDir();
(upstream ? describe : describe.skip)("pullModeBootstrap against upstream v1.18.2", () => {
  it("has every RBAC object of upstream's bootstrap manifest with the same rules, refs and subjects", () => {
    const theirs = upstreamYaml(upstream!, "artifacts/deploy/bootstrap-token-configuration.yaml");
    const rbacKinds = ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"];
    const theirRbac = theirs.filter((d) => rbacKinds.includes(d.kind));
    expect(objects.filter((o) => rbacKinds.includes(o.kind)).length).toBe(theirRbac.length);
    for (const doc of theirRbac) {
      const ours = get(doc.kind, doc.metadata.name);
      expect({
        ns: ours.metadata.namespace,
        rules: ours.rules,
        roleRef: ours.roleRef,
        subjects: ours.subjects,
      }).toEqual({
        ns: doc.metadata.namespace,
        rules: doc.rules,
        roleRef: doc.roleRef,
        subjects: doc.subjects,
      });
    }
    const configMap = theirs.find((d) => d.kind === "ConfigMap")!;
    expect([configMap.metadata.namespace, configMap.metadata.name, Object.keys(configMap.data)]).toEqual([
      "kube-public",
      "cluster-info",
      [BOOTSTRAP.clusterInfoKey],
    ]);
  });
});
