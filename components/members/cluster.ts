import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { applyObjects, KubeObject } from "../../lib/kube/apply";
import { clusterWithId } from "../../lib/members/cluster";
import { MemberContext } from "./context";

/** The kube-system read of each member provider, so that Clusters sharing one API server read it once. */
const kubeSystemReads = new WeakMap<pulumi.ProviderResource, k8s.core.v1.Namespace>();

/**
 * The member's `kube-system` Namespace, read (not managed) through the member's provider: its UID is
 * the cluster id that karmadactl join and karmada-agent (pkg/util `ObtainClusterID`) record as the
 * Cluster's `spec.id`. One read per member provider: registrations sharing a provider (many Clusters on
 * one API server) use the first one's `<registration>-member-kube-system` (a hundred reads of three
 * objects were a tenth of a hundred-cluster `up`'s steps, docs/performance.md).
 */
function readMemberKubeSystem(ctx: MemberContext): k8s.core.v1.Namespace {
  const known = kubeSystemReads.get(ctx.member);
  if (known) return known;
  const read = k8s.core.v1.Namespace.get(`${ctx.name}-member-kube-system`, "kube-system", {
    parent: ctx.parent,
    provider: ctx.member,
  });
  kubeSystemReads.set(ctx.member, read);
  return read;
}

/**
 * A provider for karmada-apiserver that adopts an existing object instead of failing on it: in pull
 * mode the agent may register the Cluster before Pulumi declares it (it creates it at start-up). Made
 * once the Cluster API serves: a kubernetes provider that finds its cluster unreachable when it is
 * configured keeps failing every object it manages ("configured Kubernetes cluster is unreachable").
 */
export function adoptingKarmadaProvider(ctx: MemberContext): k8s.Provider {
  return new k8s.Provider(
    `${ctx.name}-karmada-adopt`,
    {
      kubeconfig: ctx.controlPlane.providerKubeconfig,
      clusterIdentifier: `karmada-${ctx.controlPlane.settings.name}`,
      upsertExistingObjects: true,
      deleteUnreachable: true,
    },
    { parent: ctx.parent, dependsOn: ctx.controlPlane.clusterApiReady },
  );
}

/** Options of {@link createClusterObject}. */
export interface ClusterObjectOptions {
  /** What must exist first (and so is deleted after the Cluster). */
  readonly dependsOn: pulumi.Resource[];
  /** Provider for karmada-apiserver. */
  readonly provider: pulumi.ProviderResource;
}

/**
 * The Cluster object, with `spec.id` from the member's kube-system Namespace (read through the member's
 * provider, so the read is a dependency of the Cluster). It depends on `clusterApiReady` — the Cluster
 * APIService (served by the aggregated apiserver, not a CRD: creating it before the APIService is
 * Available fails) and the controllers (which finalize it on deletion) — and on everything in
 * `dependsOn`, the member-side objects and credentials, so that Pulumi deletes the Cluster first.
 */
export function createClusterObject(
  ctx: MemberContext,
  cluster: KubeObject,
  options: ClusterObjectOptions,
): pulumi.CustomResource {
  const kubeSystem = readMemberKubeSystem(ctx);
  const spec = kubeSystem.metadata.apply((md) => clusterWithId(cluster, md?.uid).spec);
  const [created] = applyObjects(`${ctx.name}-karmada`, [cluster], {
    parent: ctx.parent,
    provider: options.provider,
    dependsOn: [...ctx.controlPlane.clusterApiReady, kubeSystem, ...options.dependsOn],
    resolve: (o) => ({ ...o, spec }),
  });
  return created;
}
