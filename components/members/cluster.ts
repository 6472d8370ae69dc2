import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { applyObjects, KubeObject } from "../../lib/kube/apply";
import { clusterObject } from "../../lib/members/cluster";
import { MemberContext } from "./context";

/**
 * The member's kube-system namespace UID, which karmadactl records as the Cluster's `spec.id` (read,
 * not managed: the read resource only looks the namespace up).
 */
export function memberClusterId(ctx: MemberContext): pulumi.Output<string | undefined> {
  const ns = k8s.core.v1.Namespace.get(`${ctx.name}-member-kube-system`, "kube-system", {
    parent: ctx.parent,
    provider: ctx.member,
  });
  return ns.metadata.apply((md) => md?.uid);
}

/**
 * A provider for karmada-apiserver that adopts an existing object instead of failing on it: in pull
 * mode the agent may register the Cluster before Pulumi declares it (it creates it at start-up).
 */
export function adoptingKarmadaProvider(ctx: MemberContext): k8s.Provider {
  return new k8s.Provider(
    `${ctx.name}-karmada-adopt`,
    {
      kubeconfig: ctx.controlPlane.adminKubeconfig,
      clusterIdentifier: `karmada-${ctx.controlPlane.settings.name}`,
      upsertExistingObjects: true,
      deleteUnreachable: true,
    },
    { parent: ctx.parent },
  );
}

/** Options of {@link createClusterObject}. */
export interface ClusterObjectOptions {
  /** What must exist first (and so is deleted after the Cluster). */
  readonly dependsOn: pulumi.Resource[] | Promise<pulumi.Resource[]>;
  /** Provider for karmada-apiserver. */
  readonly provider: pulumi.ProviderResource;
  /** `spec.id` (push). @default - left out */
  readonly id?: pulumi.Output<string | undefined>;
  /** Fields the agent also writes: Pulumi's values win. @default false */
  readonly forceFields?: boolean;
}

/**
 * The Cluster object. It depends on the Cluster APIService (served by the aggregated apiserver, not a
 * CRD: creating it before the APIService is Available fails) and on everything in `dependsOn` — the
 * member-side objects and credentials — so that Pulumi deletes the Cluster first on removal.
 */
export function createClusterObject(
  ctx: MemberContext,
  options: ClusterObjectOptions,
): pulumi.CustomResource {
  const base = clusterObject(ctx.settings);
  const obj: KubeObject = options.forceFields
    ? {
        ...base,
        metadata: { ...base.metadata, annotations: { "pulumi.com/patchForce": "true" } },
      }
    : base;
  const dependsOn = Promise.resolve(options.dependsOn).then((deps) => [
    ...ctx.controlPlane.clusterApiReady,
    ...deps,
  ]);
  const [cluster] = applyObjects(`${ctx.name}-karmada`, [obj], {
    parent: ctx.parent,
    provider: options.provider,
    dependsOn,
    resolve: options.id
      ? (o) => ({
          ...o,
          spec: pulumi.output(options.id!).apply((id) => ({ ...(o.spec as object), ...(id ? { id } : {}) })),
        })
      : undefined,
  });
  return cluster;
}
