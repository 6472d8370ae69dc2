import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { findPlaceholders } from "../manifests/placeholders";
import type { KubeObject } from "./object";

export type { KubeObject };

type KubeResourceClass = new (
  name: string,
  args: any,
  opts?: pulumi.CustomResourceOptions,
) => pulumi.CustomResource;

/**
 * Typed @pulumi/kubernetes classes for the built-in kinds we apply, so previews and policies see the
 * proper resource types. Anything else (Karmada custom resources) goes through CustomResource.
 */
const TYPED_KINDS: Readonly<Record<string, KubeResourceClass>> = {
  "v1/Namespace": k8s.core.v1.Namespace,
  "v1/Service": k8s.core.v1.Service,
  "v1/ServiceAccount": k8s.core.v1.ServiceAccount,
  "v1/ConfigMap": k8s.core.v1.ConfigMap,
  "v1/Endpoints": k8s.core.v1.Endpoints,
  "v1/PersistentVolumeClaim": k8s.core.v1.PersistentVolumeClaim,
  "discovery.k8s.io/v1/EndpointSlice": k8s.discovery.v1.EndpointSlice,
  "apps/v1/Deployment": k8s.apps.v1.Deployment,
  "apps/v1/StatefulSet": k8s.apps.v1.StatefulSet,
  "batch/v1/CronJob": k8s.batch.v1.CronJob,
  "batch/v1/Job": k8s.batch.v1.Job,
  "policy/v1/PodDisruptionBudget": k8s.policy.v1.PodDisruptionBudget,
  "rbac.authorization.k8s.io/v1/Role": k8s.rbac.v1.Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": k8s.rbac.v1.RoleBinding,
  "rbac.authorization.k8s.io/v1/ClusterRole": k8s.rbac.v1.ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": k8s.rbac.v1.ClusterRoleBinding,
  "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration":
    k8s.admissionregistration.v1.MutatingWebhookConfiguration,
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration":
    k8s.admissionregistration.v1.ValidatingWebhookConfiguration,
  "apiregistration.k8s.io/v1/APIService": k8s.apiregistration.v1.APIService,
  "apiextensions.k8s.io/v1/CustomResourceDefinition": k8s.apiextensions.v1.CustomResourceDefinition,
};

/**
 * Patch counterparts of the kinds that hold data `destroy` keeps (see {@link ApplyOptions.keptOnDestroy}),
 * with the Pulumi type of each plain and patch resource (for aliases between the two).
 */
const KEPT_KINDS: Readonly<Record<string, { patch: KubeResourceClass; plain: string; patched: string }>> = {
  "v1/Namespace": {
    patch: k8s.core.v1.NamespacePatch,
    plain: "kubernetes:core/v1:Namespace",
    patched: "kubernetes:core/v1:NamespacePatch",
  },
  "v1/PersistentVolumeClaim": {
    patch: k8s.core.v1.PersistentVolumeClaimPatch,
    plain: "kubernetes:core/v1:PersistentVolumeClaim",
    patched: "kubernetes:core/v1:PersistentVolumeClaimPatch",
  },
};

/**
 * Secret content never goes through here: Secrets are created natively by `createSecret` so that their
 * data is a Pulumi secret from the start. Refusing them keeps a stray plaintext Secret out of state.
 */
function assertNotSecret(obj: KubeObject): void {
  if (obj.kind === "Secret") {
    throw new Error(
      `refusing to apply Secret ${obj.metadata.name} from a plain manifest: secrets must be created with createSecret`,
    );
  }
}

/**
 * An object applied without `resolve` must not carry a placeholder: it would reach the cluster as the
 * literal token (e.g. a pod annotation `@@karmada:certificates-sha256@@`).
 */
function assertNoPlaceholders(obj: KubeObject): void {
  const uses = findPlaceholders(obj);
  if (uses.length > 0) {
    throw new Error(
      `${obj.kind} ${obj.metadata.name} holds placeholder ${uses[0].token} at ${uses[0].path} but is applied without resolve`,
    );
  }
}

/**
 * Pulumi name of an applied object; public contract (renaming replaces the object), so it is derived
 * only from the owner prefix, kind, namespace and name: `${prefix}-${kind}-${namespace}-${name}`.
 */
export function kubeResourceName(prefix: string, obj: KubeObject): string {
  const ns = obj.metadata.namespace ? `${obj.metadata.namespace}-` : "";
  return `${prefix}-${obj.kind.toLowerCase()}-${ns}${obj.metadata.name}`;
}

export interface ApplyOptions {
  /** Component that owns the resources. */
  readonly parent: pulumi.Resource;
  /** Cluster to apply to; required, nothing in this library uses the default provider. */
  readonly provider: pulumi.ProviderResource;
  /** Resources that must exist first (the previous install phase). */
  readonly dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
  /**
   * Replaces placeholder fields (strings equal to a placeholder token) by Pulumi values, so manifests
   * stay pure while fields like CA bundles come from certificate resources.
   */
  readonly resolve?: (obj: KubeObject) => pulumi.Input<Record<string, unknown>>;
  /** Keep the objects in the cluster when the Pulumi resource is deleted. */
  readonly retainOnDelete?: boolean;
  /**
   * The objects hold data that `destroy` keeps (etcd's namespace, a backup claim): they are kept in the
   * cluster when the resource is deleted, and applied with server-side apply (the kind's Patch resource),
   * which creates the object when it is missing and adopts the one a previous `destroy` left, so the
   * next `up` resumes on it instead of failing with `already exists`. Each is aliased to its plain
   * resource type: switching this on or off is an update, never a delete. Namespaces and
   * PersistentVolumeClaims only.
   */
  readonly keptOnDestroy?: boolean;
  /**
   * Do not delete the objects one by one when this resource is deleted in the same operation: the API
   * server they live in goes with it, and they stay with its data.
   */
  readonly deletedWith?: pulumi.Resource;
  /** A value whose change replaces the objects (e.g. a credential generation). */
  readonly replacementTrigger?: pulumi.Input<string>;
  /** Delete the old object before creating its replacement (same name: it must be gone first). */
  readonly deleteBeforeReplace?: boolean;
  /** Properties written at creation and never updated (a record of how the object began). */
  readonly ignoreChanges?: string[];
}

/** Applies each object as its own Pulumi resource (one resource per object, so previews diff per object). */
export function applyObjects(
  prefix: string,
  objects: readonly KubeObject[],
  opts: ApplyOptions,
): pulumi.CustomResource[] {
  return objects.map((obj) => {
    assertNotSecret(obj);
    if (!opts.resolve) assertNoPlaceholders(obj);
    const key = `${obj.apiVersion}/${obj.kind}`;
    const kept = KEPT_KINDS[key];
    if (opts.keptOnDestroy && !kept) {
      throw new Error(
        `${obj.kind} ${obj.metadata.name}: only Namespaces and PersistentVolumeClaims are kept on destroy`,
      );
    }
    const inputs = opts.resolve ? opts.resolve(obj) : obj;
    const resourceOpts: pulumi.CustomResourceOptions = {
      parent: opts.parent,
      provider: opts.provider,
      dependsOn: opts.dependsOn,
      retainOnDelete: opts.retainOnDelete || opts.keptOnDestroy,
      deletedWith: opts.deletedWith,
      replacementTrigger: opts.replacementTrigger,
      deleteBeforeReplace: opts.deleteBeforeReplace,
      ignoreChanges: opts.ignoreChanges,
      // the same object as a plain and as a patch resource: moving between them updates it in place
      ...(kept ? { aliases: [{ type: opts.keptOnDestroy ? kept.plain : kept.patched }] } : {}),
    };
    const name = kubeResourceName(prefix, obj);
    if (opts.keptOnDestroy) return new kept.patch(name, inputs, resourceOpts);
    const Typed = TYPED_KINDS[key];
    if (Typed) {
      return new Typed(name, inputs, resourceOpts);
    }
    return new k8s.apiextensions.CustomResource(
      name,
      inputs as k8s.apiextensions.CustomResourceArgs,
      resourceOpts,
    );
  });
}
