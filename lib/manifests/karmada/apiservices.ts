import { Chart } from "cdk8s";
import { k8s } from "cdk8s-plus-33";
import type { KubeObject } from "../../kube/object";
import { KarmadaComponent } from "../../catalog/components";
import { objectNames } from "../../controlplane/names";
import { ControlPlaneSettings } from "../../controlplane/settings";
import { PLACEHOLDERS } from "../placeholders";
import {
  addApiBackend,
  API_BACKEND_PORT,
  ApiBackend,
  hostServiceBackend,
  validateApiBackend,
} from "./api-backends";
import { synthChart } from "./chart";

/** One API group/version served by an aggregated API server. */
interface AggregatedApiVersion {
  /** API group, e.g. `cluster.karmada.io`. */
  readonly group: string;
  /** API version, e.g. `v1alpha1`. */
  readonly version: string;
  /** Priority of the group among all groups (discovery order). */
  readonly groupPriorityMinimum: number;
  /** Priority of this version within its group. */
  readonly versionPriority: number;
}

/** The Cluster API (`cluster.karmada.io/v1alpha1`) served by karmada-aggregated-apiserver; not a CRD. */
const CLUSTER_API: AggregatedApiVersion = {
  group: "cluster.karmada.io",
  version: "v1alpha1",
  groupPriorityMinimum: 2000,
  versionPriority: 10,
};

/** APIs served by karmada-search. */
const SEARCH_API: AggregatedApiVersion = {
  group: "search.karmada.io",
  version: "v1alpha1",
  groupPriorityMinimum: 2000,
  versionPriority: 10,
};

/** APIs served by karmada-metrics-adapter (resource metrics and custom metrics, two versions). */
const METRICS_APIS: readonly AggregatedApiVersion[] = [
  { group: "metrics.k8s.io", version: "v1beta1", groupPriorityMinimum: 2000, versionPriority: 10 },
  { group: "custom.metrics.k8s.io", version: "v1beta1", groupPriorityMinimum: 100, versionPriority: 200 },
  { group: "custom.metrics.k8s.io", version: "v1beta2", groupPriorityMinimum: 100, versionPriority: 200 },
];

/** APIService object name: `<version>.<group>`, as Kubernetes requires. */
const apiServiceName = (api: AggregatedApiVersion): string => `${api.version}.${api.group}`;

function addApiService(chart: Chart, component: KarmadaComponent, api: AggregatedApiVersion): void {
  const name = apiServiceName(api);
  new k8s.KubeApiService(chart, name, {
    metadata: { name, labels: { app: component, apiserver: "true" } },
    spec: {
      group: api.group,
      version: api.version,
      groupPriorityMinimum: api.groupPriorityMinimum,
      versionPriority: api.versionPriority,
      caBundle: PLACEHOLDERS.caBundle,
      service: {
        name: objectNames.workload(component),
        namespace: objectNames.karmadaSystemNamespace,
        port: API_BACKEND_PORT,
      },
    },
  });
}

/**
 * Backend Service(s) plus APIService(s) of one aggregated API server. The APIService trusts the Karmada
 * CA ({@link PLACEHOLDERS.caBundle}), which signed the server's serving certificate.
 */
function aggregatedApiServer(
  settings: ControlPlaneSettings,
  component: KarmadaComponent,
  apis: readonly AggregatedApiVersion[],
  backend: ApiBackend | undefined,
  field: string,
): KubeObject[] {
  const chosen = backend ?? hostServiceBackend(settings, component);
  validateApiBackend(chosen, field);
  return synthChart(`${component}-apis`, (chart) => {
    addApiBackend(chart, objectNames.workload(component), chosen);
    for (const api of apis) addApiService(chart, component, api);
  });
}

/**
 * Service `karmada-aggregated-apiserver` in karmada-system and APIService `v1alpha1.cluster.karmada.io`.
 * Until this APIService is Available, `Cluster` objects cannot be created.
 * @param backend where the server runs. @default - its host-cluster Service by DNS name
 */
export function clusterApiObjects(settings: ControlPlaneSettings, backend?: ApiBackend): KubeObject[] {
  return aggregatedApiServer(
    settings,
    "karmada-aggregated-apiserver",
    [CLUSTER_API],
    backend,
    "aggregatedApiBackend",
  );
}

/**
 * karmada-metrics-adapter's Service and its three APIServices; apply only when the adapter is enabled,
 * otherwise the unavailable `metrics.k8s.io` APIService degrades discovery for every client.
 * @param backend @default - its host-cluster Service by DNS name
 */
export function metricsAdapterApiObjects(settings: ControlPlaneSettings, backend?: ApiBackend): KubeObject[] {
  return aggregatedApiServer(
    settings,
    "karmada-metrics-adapter",
    METRICS_APIS,
    backend,
    "metricsAdapterBackend",
  );
}

/**
 * karmada-search's Service and APIService `v1alpha1.search.karmada.io`; apply only when search is enabled.
 * @param backend @default - its host-cluster Service by DNS name
 */
export function searchApiObjects(settings: ControlPlaneSettings, backend?: ApiBackend): KubeObject[] {
  return aggregatedApiServer(settings, "karmada-search", [SEARCH_API], backend, "searchBackend");
}
