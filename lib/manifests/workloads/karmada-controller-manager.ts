import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/** karmada-controller-manager: propagation, bindings, cluster status and the other Karmada controllers. */
const karmadaControllerManagerWorkload: WorkloadSpec = {
  component: "karmada-controller-manager",
  command: "/bin/karmada-controller-manager",
};

/** Deployment of karmada-controller-manager. */
export function karmadaControllerManagerManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, karmadaControllerManagerWorkload);
}
