import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/** karmada-search (optional): cross-cluster search and proxy API, caching in Karmada's etcd. */
const searchWorkload: WorkloadSpec = {
  component: "karmada-search",
  command: "/bin/karmada-search",
  service: { port: 443 },
};

/** Deployment and Service (443) of karmada-search. */
export function searchManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, searchWorkload);
}
