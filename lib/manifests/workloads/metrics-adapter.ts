import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/** karmada-metrics-adapter (optional): serves the metrics APIs aggregated from member clusters. */
const metricsAdapterWorkload: WorkloadSpec = {
  component: "karmada-metrics-adapter",
  command: "/bin/karmada-metrics-adapter",
  service: { port: 443 },
};

/** Deployment and Service (443) of karmada-metrics-adapter. */
export function metricsAdapterManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, metricsAdapterWorkload);
}
