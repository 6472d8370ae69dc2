import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/** karmada-aggregated-apiserver: serves `cluster.karmada.io` (the Cluster API) behind karmada-apiserver. */
const aggregatedApiServerWorkload: WorkloadSpec = {
  component: "karmada-aggregated-apiserver",
  command: "/bin/karmada-aggregated-apiserver",
  service: { port: 443 },
};

/** Deployment and Service (443) of karmada-aggregated-apiserver. */
export function aggregatedApiServerManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, aggregatedApiServerWorkload);
}
