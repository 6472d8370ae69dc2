import type { KubeObject } from "../../kube/object";
import { ControlPlaneSettings } from "../../controlplane/settings";
import { ApiBackend } from "./api-backends";
import { clusterApiObjects, metricsAdapterApiObjects, searchApiObjects } from "./apiservices";
import { pullModeBootstrap } from "./bootstrap";
import { karmadaNamespaces } from "./namespaces";
import { karmadaRbac } from "./rbac";
import { defaultWebhookBaseUrl, webhookConfigurations } from "./webhooks";

export * from "./api-backends";
export * from "./apiservices";
export * from "./bootstrap";
export * from "./namespaces";
export * from "./rbac";
export * from "./webhooks";

/** Where karmada-apiserver reaches the servers it calls; defaults suit a containerized control plane. */
export interface KarmadaApiObjectOptions {
  /**
   * Base URL of karmada-webhook (hosts mode: e.g. `https://10.0.0.5:8443`).
   * @default `https://karmada-webhook.<host-namespace>.svc:443`
   */
  readonly webhookBaseUrl?: string;
  /**
   * Backend of each aggregated API server (hosts mode: `{kind: "endpoints", addresses, port}`).
   * @default - each component's host-cluster Service by DNS name
   */
  readonly backends?: {
    /** karmada-aggregated-apiserver (Cluster API). */
    readonly aggregatedApiserver?: ApiBackend;
    /** karmada-metrics-adapter. */
    readonly metricsAdapter?: ApiBackend;
    /** karmada-search. */
    readonly search?: ApiBackend;
  };
  /**
   * Publish cluster-info and the bootstrap RBAC so `karmadactl register` (pull mode) works.
   * @default true
   */
  readonly pullModeBootstrap?: boolean;
}

/**
 * Objects applied inside karmada-apiserver, by install group, in install order:
 * 1. `namespaces` — first; everything namespaced below lives in them (or in the built-in kube-public).
 * 2. (the CRD bundle, see lib/crds — applied by the caller between 1 and 3)
 * 3. `crdDependents` — the admission webhook configurations: they act on Karmada CRD resources, so apply
 *    them after the CRDs, and wait for karmada-webhook to serve before relying on them
 *    (`failurePolicy: Fail` rejects writes to Karmada resources while it is down).
 * 4. `apiServices` — Cluster API always; metrics-adapter and search APIs when those components are
 *    enabled in `settings`. Needs `namespaces`; `Cluster` objects need the Cluster APIService Available.
 * 5. `rbac` — aggregated view/edit roles and the cluster proxy grant; no prerequisites.
 * 6. `bootstrap` — pull-mode registration support (empty if disabled); needs kube-public only.
 * Fields with Pulumi-only values hold placeholders (lib/manifests/placeholders.ts).
 */
export interface KarmadaApiObjectGroups {
  /** Step 1: karmada-system and karmada-cluster. */
  readonly namespaces: KubeObject[];
  /** Step 3: admission webhook configurations (after the CRDs). */
  readonly crdDependents: KubeObject[];
  /** Step 4: backend Services and APIServices of the aggregated APIs. */
  readonly apiServices: KubeObject[];
  /** Step 5: aggregated view/edit roles, cluster proxy grant. */
  readonly rbac: KubeObject[];
  /** Step 6: pull-mode registration support. */
  readonly bootstrap: KubeObject[];
}

/** Every object a control plane applies inside karmada-apiserver, grouped in install order. */
export function karmadaApiObjects(
  settings: ControlPlaneSettings,
  options: KarmadaApiObjectOptions = {},
): KarmadaApiObjectGroups {
  const { backends = {} } = options;
  const enabled = (component: "karmada-metrics-adapter" | "karmada-search") =>
    settings.components[component].enabled;
  return {
    namespaces: karmadaNamespaces(),
    crdDependents: webhookConfigurations(options.webhookBaseUrl ?? defaultWebhookBaseUrl(settings)),
    apiServices: [
      ...clusterApiObjects(settings, backends.aggregatedApiserver),
      ...(enabled("karmada-metrics-adapter")
        ? metricsAdapterApiObjects(settings, backends.metricsAdapter)
        : []),
      ...(enabled("karmada-search") ? searchApiObjects(settings, backends.search) : []),
    ],
    rbac: karmadaRbac(),
    bootstrap: options.pullModeBootstrap === false ? [] : pullModeBootstrap(),
  };
}
