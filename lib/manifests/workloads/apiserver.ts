import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/**
 * karmada-apiserver (the kube-apiserver image): Karmada's API. Its Service is how everything reaches
 * it, exposed per `apiServer.serviceType`, port named `client` as upstream names it.
 */
function apiServerWorkload(settings: ControlPlaneSettings): WorkloadSpec {
  const api = settings.apiServer;
  return {
    component: "karmada-apiserver",
    command: "kube-apiserver",
    service: {
      port: api.port,
      portName: "client",
      type: api.serviceType,
      nodePort: api.nodePort,
      loadBalancerClass: api.loadBalancerClass,
      annotations: api.serviceAnnotations,
    },
  };
}

/** Deployment and Service of karmada-apiserver (plus a PodDisruptionBudget with several replicas). */
export function apiServerManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, apiServerWorkload(settings));
}
