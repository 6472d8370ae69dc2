/** A member registration with every default applied (resolve.ts). */
import { AgentIdentity, ClusterTaint, MemberPermissions, PolicyRule, SyncMode } from "./config";
import { MemberObjectNames } from "./names";

/** Resolved pull options. */
interface PullSettings {
  readonly replicas: number;
  readonly identity: AgentIdentity;
  readonly extraArgs: Readonly<Record<string, string>>;
  readonly karmadaApiEndpoint?: string;
  readonly certValidityHours: number;
  readonly reportSecrets: boolean;
  readonly bootstrapTokenTtlHours: number;
  readonly namespace: string;
  readonly createNamespace: boolean;
}

/** A member registration with every default applied. */
export interface MemberSettings {
  readonly clusterName: string;
  /** Every name of the member's objects (karmadactl's naming), derived once from the cluster name. */
  readonly names: MemberObjectNames;
  readonly mode: SyncMode;
  readonly apiEndpoint: string;
  readonly provider?: string;
  readonly region?: string;
  readonly zones: readonly string[];
  readonly taints: readonly Required<ClusterTaint>[];
  readonly proxyURL?: string;
  readonly insecureSkipTLSVerification: boolean;
  /** Namespace of the member-side accounts and token Secrets (pull: always `karmada-cluster`). */
  readonly credentialsNamespace: string;
  readonly permissions: MemberPermissions;
  readonly extraRules: readonly PolicyRule[];
  /** Present in pull mode only. */
  readonly pull?: PullSettings;
  readonly credentialGeneration: number;
  readonly forceRemove: boolean;
}
