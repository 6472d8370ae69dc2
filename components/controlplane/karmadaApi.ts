import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ControlPlaneSettings } from "../../lib/controlplane/settings";
import { CrdSource, loadCrdBundle } from "../../lib/crds";
import { KubeObject, applyObjects } from "../../lib/kube/apply";
import { KarmadaApiObjectOptions, karmadaApiObjects } from "../../lib/manifests/karmada";
import { PLACEHOLDERS, substitute } from "../../lib/manifests/placeholders";
import { InstallPhase } from "../../lib/controlplane/installOrder";
import { InstallGraph } from "./installGraph";

/** What the Karmada-side objects are filled in with. */
export interface KarmadaApiInputs {
  readonly caCertPem: pulumi.Output<string>;
  /** URL published in kube-public/cluster-info for pull-mode agents. */
  readonly apiServerUrl: string;
  readonly crds: CrdSource;
  readonly options?: KarmadaApiObjectOptions;
}

/** Resources inside karmada-apiserver, by install phase. */
export interface KarmadaApiResources {
  readonly namespaces: pulumi.Resource[];
  /** Resolves once the CRD bundle is loaded and every CRD registered. */
  readonly crds: Promise<pulumi.Resource[]>;
  readonly webhooks: Promise<pulumi.Resource[]>;
  readonly apiServices: pulumi.Resource[];
  readonly rbac: pulumi.Resource[];
  readonly bootstrap: pulumi.Resource[];
  /** Everything above: what controllers and Karmada objects wait for. */
  readonly all: Promise<pulumi.Resource[]>;
}

/**
 * Applies, through the Karmada provider, the objects that live inside karmada-apiserver, each group
 * after what its phase comes after in the mode's install order (`graph`, lib/controlplane/installOrder.ts):
 * namespaces → CRDs (from the bundle) → webhook configurations; the Cluster APIService once the
 * aggregated apiserver is deployed; RBAC and the pull-mode bootstrap objects. Placeholder fields (CA bundle, API URL) are
 * filled from Pulumi Outputs field by field, so the rest of each object stays visible in previews.
 *
 * They are `deletedWith` the control plane (`parent`): when the control plane itself is deleted they
 * stay in karmada-apiserver's etcd, with its data. Deleting them one by one would take minutes and,
 * for a CRD, delete every object of its kind — users' policies — from data that is kept unless
 * `deleteData` says otherwise. One that leaves the bundle while the control plane stays is deleted.
 */
export function deployKarmadaApiObjects(
  name: string,
  parent: pulumi.Resource,
  provider: k8s.Provider,
  settings: ControlPlaneSettings,
  inputs: KarmadaApiInputs,
  graph: InstallGraph,
): KarmadaApiResources {
  const caBundle = inputs.caCertPem.apply((pem) => Buffer.from(pem).toString("base64"));
  const resolve = (obj: KubeObject) =>
    substitute<pulumi.Output<string>>(
      obj,
      {
        [PLACEHOLDERS.caBundle]: caBundle,
        [PLACEHOLDERS.caCrt]: inputs.caCertPem,
        [PLACEHOLDERS.apiServerUrl]: pulumi.output(inputs.apiServerUrl),
      },
      { interpolate: (parts) => pulumi.concat(...parts) },
    ) as pulumi.Input<Record<string, unknown>>;
  const groups = karmadaApiObjects(settings, inputs.options);
  // Objects inside karmada-apiserver get their own name prefix: some share kind, namespace and name with
  // host-cluster objects (the karmada-aggregated-apiserver Service in karmada-system exists on both).
  const prefix = `${name}-in-karmada`;
  const base = { parent, provider, resolve, deletedWith: parent };
  const apply = (phase: InstallPhase, objects: readonly KubeObject[]) => {
    const resources = applyObjects(prefix, objects, { ...base, dependsOn: graph.dependsOn(phase) });
    graph.done(phase, resources);
    return resources;
  };
  const namespaces = apply("karmada-namespaces", groups.namespaces);
  const crds = loadCrdBundle(inputs.crds, settings.release, {
    webhook: { namespace: settings.namespace, baseUrl: inputs.options?.webhookBaseUrl },
  }).then((bundle) => applyObjects(prefix, bundle.crds, { ...base, dependsOn: graph.dependsOn("crds") }));
  graph.done("crds", crds);
  const webhooks = crds.then(() =>
    applyObjects(prefix, groups.crdDependents, {
      ...base,
      dependsOn: graph.dependsOn("webhook-configurations"),
    }),
  );
  graph.done("webhook-configurations", webhooks);
  const apiServices = apply("apiservices", groups.apiServices);
  const rbac = apply("rbac", groups.rbac);
  const bootstrap = apply("bootstrap", groups.bootstrap);
  const all = Promise.all([crds, webhooks]).then(([c, w]) => [
    ...namespaces,
    ...c,
    ...w,
    ...apiServices,
    ...rbac,
    ...bootstrap,
  ]);
  return { namespaces, crds, webhooks, apiServices, rbac, bootstrap, all };
}
