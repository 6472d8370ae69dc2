import { k8s } from "cdk8s-plus-33";
import type { KubeObject } from "../../kube/object";
import { synthChart } from "./chart";

/** Group of every RBAC reference. */
export const RBAC_GROUP = "rbac.authorization.k8s.io";

/** Label upstream puts on the RBAC objects it installs by default. */
export const KARMADA_RBAC_DEFAULTS_LABEL = { "karmada.io/bootstrapping": "rbac-defaults" } as const;

/** Karmada resources that namespace users work with, by API group (what `view`/`edit` should cover). */
export const KARMADA_USER_RESOURCES: readonly {
  readonly group: string;
  readonly resources: readonly string[];
}[] = [
  {
    group: "autoscaling.karmada.io",
    resources: ["cronfederatedhpas", "cronfederatedhpas/status", "federatedhpas", "federatedhpas/status"],
  },
  {
    group: "multicluster.x-k8s.io",
    resources: ["serviceexports", "serviceexports/status", "serviceimports", "serviceimports/status"],
  },
  {
    group: "networking.karmada.io",
    resources: [
      "multiclusteringresses",
      "multiclusteringresses/status",
      "multiclusterservices",
      "multiclusterservices/status",
    ],
  },
  { group: "policy.karmada.io", resources: ["overridepolicies", "propagationpolicies"] },
  {
    group: "work.karmada.io",
    resources: ["resourcebindings", "resourcebindings/status", "works", "works/status"],
  },
];

/** Read verbs (aggregated into `view`). */
const VIEW_VERBS = ["get", "list", "watch"] as const;
/** Write verbs (aggregated into `edit`, which already includes `view`). */
const EDIT_VERBS = ["create", "delete", "deletecollection", "patch", "update"] as const;

/** User the Karmada admin kubeconfig authenticates as (CN of the admin client certificate). */
const KARMADA_ADMIN_USER = "system:admin";

/** ClusterRole names created by {@link karmadaRbac}. */
export const RBAC_NAMES = {
  view: "karmada-view",
  edit: "karmada-edit",
  clusterProxyAdmin: "cluster-proxy-admin",
} as const;

/**
 * ClusterRoles `karmada-view` and `karmada-edit`, aggregated into the built-in `view`/`edit` (and so
 * `admin`) roles so that namespace users can work with Karmada resources, and `cluster-proxy-admin` bound
 * to `system:admin` so the admin may use the member-cluster proxy (`clusters/proxy`).
 */
export function karmadaRbac(): KubeObject[] {
  const rules = (verbs: readonly string[]) =>
    KARMADA_USER_RESOURCES.map(({ group, resources }) => ({
      apiGroups: [group],
      resources: [...resources],
      verbs: [...verbs],
    }));
  return synthChart("karmada-rbac", (chart) => {
    new k8s.KubeClusterRole(chart, RBAC_NAMES.view, {
      metadata: {
        name: RBAC_NAMES.view,
        labels: { ...KARMADA_RBAC_DEFAULTS_LABEL, "rbac.authorization.k8s.io/aggregate-to-view": "true" },
      },
      rules: rules(VIEW_VERBS),
    });
    new k8s.KubeClusterRole(chart, RBAC_NAMES.edit, {
      metadata: {
        name: RBAC_NAMES.edit,
        labels: { ...KARMADA_RBAC_DEFAULTS_LABEL, "rbac.authorization.k8s.io/aggregate-to-edit": "true" },
      },
      rules: rules(EDIT_VERBS),
    });
    new k8s.KubeClusterRole(chart, `${RBAC_NAMES.clusterProxyAdmin}-role`, {
      metadata: { name: RBAC_NAMES.clusterProxyAdmin },
      rules: [{ apiGroups: ["cluster.karmada.io"], resources: ["clusters/proxy"], verbs: ["*"] }],
    });
    new k8s.KubeClusterRoleBinding(chart, `${RBAC_NAMES.clusterProxyAdmin}-binding`, {
      metadata: { name: RBAC_NAMES.clusterProxyAdmin },
      roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: RBAC_NAMES.clusterProxyAdmin },
      subjects: [{ apiGroup: RBAC_GROUP, kind: "User", name: KARMADA_ADMIN_USER }],
    });
  });
}
