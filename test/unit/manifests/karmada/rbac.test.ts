import { karmadaRbac, KARMADA_USER_RESOURCES, RBAC_NAMES } from "../../../../lib/manifests/karmada/rbac";
import { KARMADA_MODULE, describeUpstream, upstreamYaml } from "../../../support/upstream";

const objects = karmadaRbac() as any[];
const get = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

describe("karmadaRbac", () => {
  it.each([
    [RBAC_NAMES.view, "rbac.authorization.k8s.io/aggregate-to-view", ["get", "list", "watch"]],
    [
      RBAC_NAMES.edit,
      "rbac.authorization.k8s.io/aggregate-to-edit",
      ["create", "delete", "deletecollection", "patch", "update"],
    ],
  ])("%s aggregates into the built-in role and covers every Karmada user resource", (name, label, verbs) => {
    const role = get("ClusterRole", name);
    expect(role.metadata.labels[label]).toBe("true");
    expect(role.rules.map((r: any) => r.apiGroups[0])).toEqual(KARMADA_USER_RESOURCES.map((g) => g.group));
    for (const rule of role.rules) expect([...rule.verbs].sort()).toEqual(verbs);
  });

  it("grants clusters/proxy to system:admin", () => {
    const role = get("ClusterRole", "cluster-proxy-admin");
    expect(role.rules).toEqual([
      { apiGroups: ["cluster.karmada.io"], resources: ["clusters/proxy"], verbs: ["*"] },
    ]);
    const binding = get("ClusterRoleBinding", "cluster-proxy-admin");
    expect(binding.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: role.metadata.name,
    });
    expect(binding.subjects).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:admin" },
    ]);
  });

  it("names every object explicitly and once", () => {
    const keys = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual([
      "ClusterRole/cluster-proxy-admin",
      "ClusterRole/karmada-edit",
      "ClusterRole/karmada-view",
      "ClusterRoleBinding/cluster-proxy-admin",
    ]);
  });
});

describeUpstream(`karmadaRbac against upstream ${KARMADA_MODULE.version}`, [KARMADA_MODULE], () => {
  it.each(["admin-clusterrole-aggregation.yaml", "cluster-proxy-admin-rbac.yaml"])(
    "%s: same rules, role refs and subjects",
    (file) => {
      for (const theirs of upstreamYaml(KARMADA_MODULE, `artifacts/deploy/${file}`)) {
        const ours = get(theirs.kind, theirs.metadata.name);
        expect(ours).toBeDefined();
        const sortRule = (r: any) => ({ ...r, verbs: [...r.verbs].sort() });
        expect(ours.rules?.map(sortRule)).toEqual(theirs.rules?.map(sortRule));
        expect(ours.roleRef).toEqual(theirs.roleRef);
        expect(ours.subjects?.map((s: any) => s.name)).toEqual(theirs.subjects?.map((s: any) => s.name));
      }
    },
  );
});
