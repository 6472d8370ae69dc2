import { parse } from "yaml";
import { BOOTSTRAP, pullModeBootstrap } from "../../../../lib/manifests/karmada/bootstrap";
import { findPlaceholders, PLACEHOLDERS, substitute } from "../../../../lib/manifests/placeholders";
import { KARMADA_MODULE, describeUpstream, upstreamYaml } from "../../../support/upstream";

const objects = pullModeBootstrap() as any[];
const get = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const subjectsOf = (name: string) => get("ClusterRoleBinding", name).subjects;
const values = {
  [PLACEHOLDERS.apiServerUrl]: "https://203.0.113.7:32443",
  [PLACEHOLDERS.caBundle]: "Q0EgUEVN",
};
/** cluster-info's kubeconfig with the placeholders substituted. */
const resolvedKubeconfig = (): string =>
  (
    substitute(get("ConfigMap", BOOTSTRAP.clusterInfoConfigMap), values, {
      interpolate: (parts) => parts.join(""),
    }) as any
  ).data[BOOTSTRAP.clusterInfoKey];

/**
 * A kubeconfig as client-go's clientcmd loads it (what `kubectl config view` prints): omitted lists are
 * empty and an omitted cluster name is "".
 */
function asLoaded(text: string): object {
  const config = parse(text);
  return {
    apiVersion: config.apiVersion,
    kind: config.kind,
    clusters: (config.clusters ?? []).map((c: any) => ({ name: c.name ?? "", cluster: c.cluster })),
    users: config.users ?? [],
    contexts: config.contexts ?? [],
    currentContext: config["current-context"] ?? "",
  };
}

describe("pullModeBootstrap", () => {
  const clusterInfo = get("ConfigMap", "cluster-info");

  it("publishes kube-public/cluster-info whose kubeconfig embeds the URL and CA placeholders", () => {
    expect(clusterInfo.metadata.namespace).toBe("kube-public");
    expect(findPlaceholders(clusterInfo).map((u) => [u.path, u.token, u.whole])).toEqual([
      ["data.kubeconfig", PLACEHOLDERS.apiServerUrl, false],
      ["data.kubeconfig", PLACEHOLDERS.caBundle, false],
    ]);
  });

  it("yields, once substituted, a kubeconfig of one unnamed cluster with that URL and CA, no users", () => {
    expect(asLoaded(resolvedKubeconfig())).toEqual({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "",
          cluster: {
            server: values[PLACEHOLDERS.apiServerUrl],
            "certificate-authority-data": values[PLACEHOLDERS.caBundle],
          },
        },
      ],
      users: [],
      contexts: [],
      currentContext: "",
    });
  });

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

describeUpstream(`pullModeBootstrap against upstream ${KARMADA_MODULE.version}`, [KARMADA_MODULE], () => {
  const reference = () => upstreamYaml(KARMADA_MODULE, "artifacts/deploy/bootstrap-token-configuration.yaml");

  it("has every RBAC object of upstream's bootstrap manifest with the same rules, refs and subjects", () => {
    const theirs = reference();
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

  it("publishes the same cluster-info kubeconfig as upstream's template, once both are filled in", () => {
    const template = reference().find((d) => d.kind === "ConfigMap")!.data[
      BOOTSTRAP.clusterInfoKey
    ] as string;
    // upstream fills {{apiserver_address}} and {{ca_crt}} with sed, as plain text
    const theirs = template
      .replace("{{apiserver_address}}", values[PLACEHOLDERS.apiServerUrl])
      .replace("{{ca_crt}}", values[PLACEHOLDERS.caBundle]);
    expect(asLoaded(resolvedKubeconfig())).toEqual(asLoaded(theirs));
  });
});
