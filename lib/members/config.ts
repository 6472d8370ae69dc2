/** What a member registration is given: its configuration as written in a stack or a program. */

/** How Karmada reaches the member: it pushes (controller-manager) or the member pulls (karmada-agent). */
export type SyncMode = "Push" | "Pull";
export const SYNC_MODES: readonly SyncMode[] = ["Push", "Pull"];

/**
 * What Karmada may do in the member. `full` is what karmadactl grants (every verb on every resource);
 * `leastPrivilege` reads everything, writes only the usual workload kinds (see lib/members/rbac.ts).
 */
export type MemberPermissions = "full" | "leastPrivilege";
export const MEMBER_PERMISSIONS: readonly MemberPermissions[] = ["full", "leastPrivilege"];

/**
 * Where the agent's identity `system:karmada:agent:<cluster>` comes from: `direct` issues it here from
 * the Karmada CA key; `bootstrapToken` goes through a bootstrap token and a CertificateSigningRequest
 * signed by Karmada's kube-controller-manager, as `karmadactl register` does.
 */
export type AgentIdentity = "direct" | "bootstrapToken";
export const AGENT_IDENTITIES: readonly AgentIdentity[] = ["direct", "bootstrapToken"];

/** Taint effects a Cluster accepts (Karmada rejects PreferNoSchedule). */
export type ClusterTaintEffect = "NoSchedule" | "NoExecute";
export const CLUSTER_TAINT_EFFECTS: readonly ClusterTaintEffect[] = ["NoSchedule", "NoExecute"];

/** A taint on the Cluster object; workloads need a matching toleration to be scheduled there. */
export interface ClusterTaint {
  /** Qualified name, e.g. `example.com/dedicated`. */
  readonly key: string;
  /**
   * Value a toleration with `operator: Equal` must match (`Exists` tolerations ignore it); a label
   * value of at most 63 characters.
   * @default ""
   */
  readonly value?: string;
  /** `NoSchedule` keeps new workloads off; `NoExecute` also evicts those already there. */
  readonly effect: ClusterTaintEffect;
}

/** One RBAC rule (the shape of rbac.authorization.k8s.io/v1 PolicyRule). */
export interface PolicyRule {
  /** API groups of `resources`; `""` is the core group, `"*"` every group. @default - none */
  readonly apiGroups?: readonly string[];
  /** Resource names in the plural (`deployments`, `pods/log`); `"*"` for all. @default - none */
  readonly resources?: readonly string[];
  /** Restrict the rule to these object names. @default - every object */
  readonly resourceNames?: readonly string[];
  /** Non-resource paths such as `/healthz` (instead of `resources`). @default - none */
  readonly nonResourceURLs?: readonly string[];
  /** Allowed verbs (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, …); `"*"` for all. */
  readonly verbs: readonly string[];
}

/** Options of pull mode (karmada-agent in the member). */
export interface PullOptions {
  /**
   * Pod replicas of the karmada-agent Deployment in the member, an integer of at least 1; the agents
   * elect a leader (lease in the agent's namespace), so extra replicas are standbys that take over.
   * @default 1
   */
  readonly replicas?: number;
  /** @default "direct" */
  readonly identity?: AgentIdentity;
  /**
   * Extra agent flags, name without dashes → value; they override generated flags of the same name.
   * Fixed: `cluster-name`, `karmada-kubeconfig` and the flags the agent writes into the Cluster object
   * (`cluster-api-endpoint`, `-provider`, `-region`, `-zones`, `proxy-server-address`,
   * `cluster-namespace`, `report-secrets`: set them through the registration's own fields). @default {}
   */
  readonly extraArgs?: Readonly<Record<string, string>>;
  /** karmada-apiserver URL as the member reaches it. @default - the control plane's `apiEndpoint` */
  readonly karmadaApiEndpoint?: string;
  /** Validity of the agent certificate, hours. @default 8760 (1 year) */
  readonly certValidityHours?: number;
  /**
   * Let the agent report the member's credentials (Secrets `<cluster>` and `<cluster>-impersonator`
   * inside Karmada), which the cluster proxy and `karmadactl get` need. The member-side service
   * accounts behind them are created here too, so that removal deletes them. @default true
   */
  readonly reportSecrets?: boolean;
  /** Bootstrap-token mode: lifetime of the token, hours; 0 = never expires. @default 24 */
  readonly bootstrapTokenTtlHours?: number;
  /**
   * Namespace of the agent in the member (`karmadactl register -n`). Not `karmada-cluster` while the
   * agent reports credentials: they live there, and the registration creates and removes it with them.
   * @default "karmada-system"
   */
  readonly namespace?: string;
  /**
   * Create (and on removal delete) that namespace. Turn off when it already exists, e.g. a member that
   * also hosts the control plane in karmada-system. @default true
   */
  readonly createNamespace?: boolean;
}

/** The plain (non-Output) part of a member registration, as written in stack config. */
export interface MemberRegistrationConfig {
  /** Name of the Cluster object: DNS-1123 label of at most 48 characters. */
  readonly clusterName: string;
  /**
   * `Push`: karmada-controller-manager reaches the member's API server with a token from a service
   * account created there (`karmadactl join`). `Pull`: a karmada-agent in the member connects out to
   * karmada-apiserver (`karmadactl register`); see `pull`.
   */
  readonly mode: SyncMode;
  /** The member's API server URL as Karmada (push) or the agent's Cluster object (pull) records it. */
  readonly apiEndpoint: string;
  /** Cloud provider name for scheduling spread. @default - none */
  readonly provider?: string;
  /**
   * Region of the member, written to the Cluster's `spec.region` (pull: through the agent's
   * `--cluster-region`); propagation policies select clusters by it (`clusterAffinity.fieldSelector`)
   * and spread over it (`spreadConstraints`). A label value.
   * @default - none
   */
  readonly region?: string;
  /**
   * Zones the member spans, written to the Cluster's `spec.zones` (pull: `--cluster-zones`), for
   * policies that select or spread by zone. Label values, each at most once.
   * @default []
   */
  readonly zones?: readonly string[];
  /** @default [] */
  readonly taints?: readonly ClusterTaint[];
  /** Proxy Karmada dials the member through (http, https or socks5 URL). @default - direct */
  readonly proxyURL?: string;
  /** Skip verifying the member's serving certificate (push only). @default false */
  readonly insecureSkipTLSVerification?: boolean;
  /**
   * Push only: namespace in the member holding the ServiceAccounts and token Secrets Karmada reaches it
   * with (karmadactl's `karmada-cluster`). Registrations sharing one member API server (a staging
   * server carrying many Clusters, a scale test) each need their own: the impersonator account's name
   * is fixed, so with one namespace they would share it, and removing one would remove the others'
   * credentials. A DNS-1123 label; created here and deleted with the registration.
   * @default "karmada-cluster"
   */
  readonly credentialsNamespace?: string;
  /** @default "full" (as karmadactl) */
  readonly permissions?: MemberPermissions;
  /** Rules added to the `leastPrivilege` role. @default [] */
  readonly extraRules?: readonly PolicyRule[];
  /** Pull-mode options; only with `mode: "Pull"`. @default {} */
  readonly pull?: PullOptions;
  /**
   * Credential generation: bump (0 → 1 → …) to issue new member tokens (push) or a new agent
   * certificate (pull) on the next `pulumi up`, without unjoining. @default 0
   */
  readonly credentialGeneration?: number;
  /**
   * Protect the registration (the Cluster object and what the member holds for Karmada) from deletion,
   * as production estates do (the policy pack's `stateful-protected`). @default false
   */
  readonly protect?: boolean;
  /**
   * Unreachable member: keep the member-side objects out of the deletion (`retainOnDelete`), so that a
   * destroy only removes the Karmada side (pull: the Works' finalizers are removed without waiting for
   * the agent). Set it, `pulumi up`, then destroy. @default false
   */
  readonly forceRemove?: boolean;
}
