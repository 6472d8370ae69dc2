/**
 * Names of the objects member registration creates. They are wire contracts with karmadactl
 * (`join`/`unjoin`, `register`/`unregister`), karmada-agent and karmada-controller-manager: a cluster
 * registered by this library can be removed by karmadactl and vice versa only while they match upstream
 * exactly (pkg/util/names, pkg/karmadactl/register of Karmada v1.18).
 */
import { KARMADA_SYSTEM_NAMESPACE } from "../catalog/namespaces";

/** Namespace holding member credentials: in the member (push) and inside Karmada (both modes). */
export const CLUSTER_NAMESPACE = "karmada-cluster";
/** Namespace of karmada-agent in the member (pull). */
export const AGENT_NAMESPACE = KARMADA_SYSTEM_NAMESPACE;
/** Label karmadactl puts on every object it creates for a member. */
export const KARMADA_SYSTEM_LABEL = { "karmada.io/system": "true" } as const;
/** Group of every karmada-agent identity (certificate organization). */
export const AGENT_GROUP = "system:karmada:agents";
/** Signer of agent client certificates (kube-controller-manager's csrsigning). */
export const AGENT_CSR_SIGNER = "kubernetes.io/kube-apiserver-client";

/** Every name one member's registration uses, derived from the cluster name alone. */
export interface MemberObjectNames {
  /** Push: ServiceAccount (and its token Secret) karmada-controller-manager acts as in the member. */
  readonly serviceAccount: string;
  /** Push: ServiceAccount (and its token Secret) karmada-aggregated-apiserver impersonates through. */
  readonly impersonatorServiceAccount: string;
  /** Push: ClusterRole and ClusterRoleBinding of {@link serviceAccount} in the member. */
  readonly clusterRole: string;
  /** Inside Karmada: Secret with keys `token` and `caBundle`. */
  readonly credentialSecret: string;
  /** Inside Karmada: Secret with key `token` of the impersonator. */
  readonly impersonatorSecret: string;
  /** Inside Karmada: namespace of the Works for this member. */
  readonly executionNamespace: string;
  /** Pull: user the agent authenticates as (certificate CN). */
  readonly agentUser: string;
  /** Pull, inside Karmada: ClusterRole and ClusterRoleBinding of the agent. */
  readonly agentClusterRole: string;
  /** Pull, inside Karmada: Role and RoleBinding on the member's credential Secrets. */
  readonly agentSecretRole: string;
  /** Pull, inside Karmada: Role and RoleBinding on the member's Works. */
  readonly agentWorkRole: string;
}

/** Names of one member's objects (karmadactl's naming). */
export function memberObjectNames(clusterName: string): MemberObjectNames {
  const serviceAccount = `karmada-${clusterName}`;
  return {
    serviceAccount,
    impersonatorServiceAccount: "karmada-impersonator",
    clusterRole: `karmada-controller-manager:${serviceAccount}`,
    credentialSecret: clusterName,
    impersonatorSecret: `${clusterName}-impersonator`,
    executionNamespace: `karmada-es-${clusterName}`,
    agentUser: `system:karmada:agent:${clusterName}`,
    agentClusterRole: `system:karmada:${clusterName}:agent`,
    agentSecretRole: `system:karmada:${clusterName}:agent-secret`,
    agentWorkRole: `system:karmada:${clusterName}:agent-work`,
  };
}

/** Pull-mode objects in the member; fixed names (one agent per member cluster). */
export const AGENT_OBJECTS = {
  /** Deployment, ClusterRole and ClusterRoleBinding. */
  name: "karmada-agent",
  serviceAccount: "karmada-agent-sa",
  /** Secret holding the agent's kubeconfig for karmada-apiserver; also its key. */
  kubeconfigSecret: "karmada-kubeconfig",
  /** Where the agent container mounts that Secret (`karmadactl unregister` reads it back from here). */
  kubeconfigDir: "/etc/kubeconfig",
} as const;

/** Bootstrap tokens live in Karmada's kube-system as `bootstrap-token-<id>`. */
export const BOOTSTRAP_TOKEN = {
  namespace: "kube-system",
  secretType: "bootstrap.kubernetes.io/token",
  secretName: (id: string): string => `bootstrap-token-${id}`,
  /** Group `karmadactl token create` authenticates its tokens as (bound to CSR creation and auto-approval). */
  group: "system:bootstrappers:karmada:default-cluster-token",
} as const;
