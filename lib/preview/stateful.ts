/**
 * Which resources of an estate hold state that a replace or delete would lose or break: the CAs every
 * certificate chains to, the service-account key every token is signed with, etcd members and their data,
 * claims and namespaces that hold data, CRDs (their objects go with them), member registrations. A preview that replaces or deletes one of
 * them is what an upgrade of this library must never cause (a renamed child gets an alias instead); the
 * upgrade gate and PR reviews check previews with {@link destructiveStatefulSteps}.
 */
import { parseUrn } from "./urn";

/** What a stateful resource holds. */
export type StatefulKind =
  | "certificate-authority"
  | "service-account-key"
  | "etcd-member"
  | "etcd-membership-record"
  | "etcd-data"
  | "namespace"
  | "custom-resources"
  | "member-registration";

/** Operations that destroy the resource as it is (a replacement deletes the old one). */
const DESTRUCTIVE_OPS: ReadonlySet<string> = new Set([
  "replace",
  "create-replacement",
  "delete-replaced",
  "discard-replaced",
  "delete",
  "discard",
]);

const COMPONENT = (component: string) => `karmada:index:${component}`;

/**
 * The kind of state `urn` holds, or undefined for resources that can be recreated without loss (leaf
 * certificates, Secrets and files derived from the PKI, Deployments, configuration objects, host scripts
 * that only (re)write files).
 */
export function statefulKind(urn: string): StatefulKind | undefined {
  const { type, name, typeChain } = parseUrn(urn);
  const under = (component: string) => typeChain.includes(COMPONENT(component));
  switch (type) {
    case "tls:index/selfSignedCert:SelfSignedCert":
      // the library self-signs only CAs
      return "certificate-authority";
    case "tls:index/privateKey:PrivateKey":
      if (name.endsWith("-ca-key")) return "certificate-authority";
      if (name.endsWith("-sa-key")) return "service-account-key";
      return undefined;
    case "command:remote:Command":
      // its delete is the teardown that stops the member; its create may bootstrap a new cluster
      return under("EtcdCluster") && name.endsWith("-member") ? "etcd-member" : undefined;
    case "random:index/randomString:RandomString":
      // which hosts may bootstrap, and the cluster token
      return under("EtcdCluster") ? "etcd-membership-record" : undefined;
    case "kubernetes:apps/v1:StatefulSet":
    case "kubernetes:core/v1:PersistentVolumeClaim":
    // kept claims and namespaces are applied as patch resources (lib/kube/apply.ts keptOnDestroy)
    case "kubernetes:core/v1:PersistentVolumeClaimPatch":
      return "etcd-data";
    case "kubernetes:core/v1:Namespace":
    case "kubernetes:core/v1:NamespacePatch":
      return "namespace";
    case "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition":
      // deleting a CRD deletes every object of it (policies, works, …)
      return "custom-resources";
    case "kubernetes:cluster.karmada.io/v1alpha1:Cluster":
      return "member-registration";
    default:
      return undefined;
  }
}

/** A step of a preview (the fields of the engine's step events the check reads). */
export interface StepLike {
  readonly op: string;
  readonly urn: string;
}

/** A step that would replace or delete a stateful resource. */
export interface DestructiveStep {
  readonly op: string;
  readonly urn: string;
  readonly kind: StatefulKind;
}

/** The steps of a preview that replace or delete a stateful resource, each once, in URN order. */
export function destructiveStatefulSteps(steps: readonly StepLike[]): DestructiveStep[] {
  const found = new Map<string, DestructiveStep>();
  for (const step of steps) {
    if (!DESTRUCTIVE_OPS.has(step.op)) continue;
    const kind = statefulKind(step.urn);
    if (kind && !found.has(`${step.urn} ${step.op}`))
      found.set(`${step.urn} ${step.op}`, { op: step.op, urn: step.urn, kind });
  }
  return [...found.values()].sort((a, b) => a.urn.localeCompare(b.urn) || a.op.localeCompare(b.op));
}
