import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/**
 * kube-controller-manager: namespace deletion, garbage collection, service-account tokens, bootstrap
 * tokens and CSR signing inside Karmada (the flags choose the controllers). No Service: nothing calls it.
 */
const kubeControllerManagerWorkload: WorkloadSpec = {
  component: "kube-controller-manager",
  command: "kube-controller-manager",
};

/** Deployment of kube-controller-manager. */
export function kubeControllerManagerManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, kubeControllerManagerWorkload);
}
