/**
 * Every object one member's registration creates, built once from its resolved settings and grouped by
 * where it lives — as the control plane's objects inside Karmada are (lib/manifests/karmada). The
 * components apply the groups in their order; none of them builds a member object itself.
 */
import type { KubeObject, SecretPlace } from "../kube/object";
import { clusterObject } from "./cluster";
import { MemberSettings } from "./settings";
import { karmadaTokenCopies, MemberCredentialObjects, memberCredentialObjects } from "./credentials";
import { AgentMemberObjects, agentMemberObjects, AgentWorkload } from "./pull";
import { agentKarmadaObjects } from "./rbac";

/** One member's objects, by side, each group in install order. */
export interface MemberObjectGroups {
  /**
   * Inside karmada-apiserver, pull only (empty in push): the execution namespace `karmada-es-<cluster>`,
   * then the agent's RBAC (which has a Role in it).
   */
  readonly karmada: { readonly executionNamespace: KubeObject[]; readonly rbac: KubeObject[] };
  /**
   * In the member, the credentials Karmada uses to reach it: push always; pull when the agent reports
   * them (`pull.reportSecrets`), so that removal leaves none behind.
   */
  readonly credentials?: MemberCredentialObjects;
  /** Inside karmada-apiserver, Karmada's copies of those tokens (present with {@link credentials}). */
  readonly tokenCopies?: { readonly credential: SecretPlace; readonly impersonator: SecretPlace };
  /** In the member, pull only: the agent's namespace, access, kubeconfig Secret and Deployment. */
  readonly agent?: AgentMemberObjects;
  /** The Cluster object inside karmada-apiserver, last; `spec.id` is added when the member is read. */
  readonly cluster: KubeObject;
}

/**
 * The member's objects. `agent` (the agent's image and credential rotation) is required in pull mode:
 * its Deployment is built from it.
 */
export function memberObjects(settings: MemberSettings, agent?: AgentWorkload): MemberObjectGroups {
  const pull = settings.pull;
  if (pull && !agent) throw new Error(`member ${settings.clusterName}: pull mode needs the agent workload`);
  const reportsCredentials = !pull || pull.reportSecrets;
  return {
    karmada: pull ? agentKarmadaObjects(settings) : { executionNamespace: [], rbac: [] },
    credentials: reportsCredentials ? memberCredentialObjects(settings) : undefined,
    tokenCopies: reportsCredentials ? karmadaTokenCopies(settings.names) : undefined,
    agent: pull ? agentMemberObjects(settings, agent!) : undefined,
    cluster: clusterObject(settings),
  };
}
