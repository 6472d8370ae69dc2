import type { KubeObject } from "../kube/object";
import { MemberPermissions, PolicyRule } from "./config";
import { CLUSTER_NAMESPACE, KARMADA_SYSTEM_LABEL } from "./names";
import type { MemberSettings } from "./settings";

const RBAC_API = "rbac.authorization.k8s.io/v1";
const RBAC_GROUP = "rbac.authorization.k8s.io";
const WRITE_VERBS = ["create", "update", "patch", "delete"];

/** karmadactl's grant: every verb on every resource, and GET on every non-resource URL. */
const FULL_ACCESS_RULES: readonly PolicyRule[] = [
  { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
  { nonResourceURLs: ["*"], verbs: ["get"] },
];

/**
 * Kinds `leastPrivilege` may write: what workloads usually propagate. Anything else (CRDs, RBAC,
 * custom resources) needs `extraRules`; Karmada reports a failed Work for a kind it may not write.
 */
export const LEAST_PRIVILEGE_WRITABLE: readonly {
  readonly group: string;
  readonly resources: readonly string[];
}[] = [
  {
    group: "",
    resources: [
      "namespaces",
      "configmaps",
      "secrets",
      "services",
      "serviceaccounts",
      "persistentvolumeclaims",
    ],
  },
  { group: "apps", resources: ["deployments", "statefulsets", "daemonsets", "replicasets"] },
  { group: "batch", resources: ["jobs", "cronjobs"] },
  { group: "autoscaling", resources: ["horizontalpodautoscalers"] },
  { group: "networking.k8s.io", resources: ["ingresses", "networkpolicies"] },
  { group: "policy", resources: ["poddisruptionbudgets"] },
  { group: "discovery.k8s.io", resources: ["endpointslices"] },
];

/**
 * Rules of Karmada's role in the member. `leastPrivilege`: read everything (status collection and
 * resource modeling list nodes and pods), GET non-resource URLs (health, version), write the kinds in
 * {@link LEAST_PRIVILEGE_WRITABLE}, record events, plus `extraRules`. It cannot grant RBAC, so the
 * unified-auth cluster proxy (which creates impersonation roles through Works) needs `extraRules`.
 */
export function memberAccessRules(
  permissions: MemberPermissions,
  extraRules: readonly PolicyRule[] = [],
): PolicyRule[] {
  if (permissions === "full") return FULL_ACCESS_RULES.map((r) => ({ ...r }));
  return [
    { apiGroups: ["*"], resources: ["*"], verbs: ["get", "list", "watch"] },
    { nonResourceURLs: ["*"], verbs: ["get"] },
    ...LEAST_PRIVILEGE_WRITABLE.map(({ group, resources }) => ({
      apiGroups: [group],
      resources: [...resources],
      verbs: WRITE_VERBS,
    })),
    { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch", "update"] },
    ...extraRules,
  ];
}

/** Rules as plain JSON (readonly arrays copied, empty fields left out). */
function ruleObjects(rules: readonly PolicyRule[]): Record<string, string[]>[] {
  return rules.map((rule) =>
    Object.fromEntries(
      Object.entries(rule)
        .filter(([, v]) => Array.isArray(v) && v.length > 0)
        .map(([k, v]) => [k, [...(v as string[])]]),
    ),
  );
}

/** A ClusterRole and a ClusterRoleBinding of the same name. */
export function clusterRoleWithBinding(
  name: string,
  rules: readonly PolicyRule[],
  subject: Record<string, string>,
  labels: Record<string, string> = {},
): KubeObject[] {
  const metadata = { name, ...(Object.keys(labels).length ? { labels } : {}) };
  return [
    { apiVersion: RBAC_API, kind: "ClusterRole", metadata, rules: ruleObjects(rules) },
    {
      apiVersion: RBAC_API,
      kind: "ClusterRoleBinding",
      metadata,
      roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name },
      subjects: [subject],
    },
  ];
}

function roleWithBinding(
  name: string,
  namespace: string,
  rules: readonly PolicyRule[],
  user: string,
): KubeObject[] {
  return [
    { apiVersion: RBAC_API, kind: "Role", metadata: { name, namespace }, rules: ruleObjects(rules) },
    {
      apiVersion: RBAC_API,
      kind: "RoleBinding",
      metadata: { name, namespace },
      roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name },
      subjects: [{ apiGroup: RBAC_GROUP, kind: "User", name: user }],
    },
  ];
}

/** Rules of `system:karmada:<cluster>:agent` (karmadactl register's, Karmada v1.18). */
function agentClusterRules(clusterName: string): PolicyRule[] {
  return [
    {
      apiGroups: ["cluster.karmada.io"],
      resources: ["clusters"],
      resourceNames: [clusterName],
      verbs: ["get", "delete"],
    },
    { apiGroups: ["cluster.karmada.io"], resources: ["clusters"], verbs: ["create", "list", "watch"] },
    {
      apiGroups: ["cluster.karmada.io"],
      resources: ["clusters/status"],
      resourceNames: [clusterName],
      verbs: ["update"],
    },
    {
      apiGroups: ["config.karmada.io"],
      resources: ["resourceinterpreterwebhookconfigurations", "resourceinterpretercustomizations"],
      verbs: ["get", "list", "watch"],
    },
    { apiGroups: [""], resources: ["namespaces"], verbs: ["get"] },
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] },
    {
      apiGroups: ["certificates.k8s.io"],
      resources: ["certificatesigningrequests"],
      verbs: ["get", "create"],
    },
    { apiGroups: [""], resources: ["services"], verbs: ["list", "watch"] },
    { apiGroups: [""], resources: ["events"], verbs: ["patch", "create", "update"] },
  ];
}

/**
 * What a pull-mode member needs inside karmada-apiserver, named and scoped exactly as
 * `karmadactl register` creates it, all bound to the user `system:karmada:agent:<cluster>`:
 * - `executionNamespace`: the namespace `karmada-es-<cluster>` (the work Role lives in it, so it must
 *   exist first; Karmada's cluster controller adopts it and removes it with the Cluster);
 * - `rbac`: ClusterRole/-Binding `system:karmada:<c>:agent`, Role/-Binding `…:agent-secret` in
 *   karmada-cluster (the member's credential Secrets), Role/-Binding `…:agent-work` in the execution
 *   namespace (its Works).
 */
export function agentKarmadaObjects({ clusterName, names }: Pick<MemberSettings, "clusterName" | "names">): {
  executionNamespace: KubeObject[];
  rbac: KubeObject[];
} {
  const user = { apiGroup: RBAC_GROUP, kind: "User", name: names.agentUser };
  return {
    executionNamespace: [
      {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: names.executionNamespace, labels: { ...KARMADA_SYSTEM_LABEL } },
      },
    ],
    rbac: [
      ...clusterRoleWithBinding(names.agentClusterRole, agentClusterRules(clusterName), user),
      ...roleWithBinding(
        names.agentSecretRole,
        CLUSTER_NAMESPACE,
        [
          {
            apiGroups: [""],
            resources: ["secrets"],
            resourceNames: [names.credentialSecret, names.impersonatorSecret],
            verbs: ["get", "patch"],
          },
          { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
        ],
        names.agentUser,
      ),
      ...roleWithBinding(
        names.agentWorkRole,
        names.executionNamespace,
        [
          {
            apiGroups: ["work.karmada.io"],
            resources: ["works"],
            verbs: ["get", "create", "list", "watch", "update", "delete"],
          },
          { apiGroups: ["work.karmada.io"], resources: ["works/status"], verbs: ["patch", "update"] },
        ],
        names.agentUser,
      ),
    ],
  };
}
