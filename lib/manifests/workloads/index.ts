import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { aggregatedApiServerManifests } from "./aggregated-apiserver";
import { apiServerManifests } from "./apiserver";
import { deschedulerManifests } from "./descheduler";
import { karmadaControllerManagerManifests } from "./karmada-controller-manager";
import { kubeControllerManagerManifests } from "./kube-controller-manager";
import { metricsAdapterManifests } from "./metrics-adapter";
import { schedulerManifests } from "./scheduler";
import { searchManifests } from "./search";
import { webhookManifests } from "./webhook";

export * from "./aggregated-apiserver";
export * from "./apiserver";
export * from "./descheduler";
export * from "./karmada-controller-manager";
export * from "./kube-controller-manager";
export * from "./metadata";
export * from "./metrics-adapter";
export * from "./scheduler";
export * from "./search";
export * from "./webhook";
export * from "./workload";

/**
 * The control plane's workloads on the host cluster, in install groups. Apply them in this order, each
 * group depending on the previous one: the aggregated apiserver needs karmada-apiserver up, and the
 * controllers need both APIs. Iterating the object's values yields the groups in order.
 */
export interface HostWorkloadManifests {
  /** karmada-apiserver. */
  readonly apiServer: KubeObject[];
  /** karmada-aggregated-apiserver. */
  readonly aggregatedApiServer: KubeObject[];
  /** Controllers, webhook and the enabled optional components. */
  readonly controllers: KubeObject[];
}

/** Optional components, each produced only when enabled. */
const OPTIONAL: readonly [
  keyof ControlPlaneSettings["components"],
  (s: ControlPlaneSettings) => KubeObject[],
][] = [
  ["karmada-metrics-adapter", metricsAdapterManifests],
  ["karmada-descheduler", deschedulerManifests],
  ["karmada-search", searchManifests],
];

/**
 * Every Deployment, Service and PodDisruptionBudget of the control plane on the host cluster. Secrets
 * (certificates, kubeconfigs) are not among them: they are created from Pulumi secrets elsewhere and
 * only referenced here by name.
 */
export function hostWorkloadManifests(settings: ControlPlaneSettings): HostWorkloadManifests {
  return {
    apiServer: apiServerManifests(settings),
    aggregatedApiServer: aggregatedApiServerManifests(settings),
    controllers: [
      ...kubeControllerManagerManifests(settings),
      ...karmadaControllerManagerManifests(settings),
      ...schedulerManifests(settings),
      ...webhookManifests(settings),
      ...OPTIONAL.filter(([component]) => settings.components[component].enabled).flatMap(([, manifests]) =>
        manifests(settings),
      ),
    ],
  };
}
