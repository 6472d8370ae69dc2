import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/** karmada-descheduler (optional): evicts replicas that member clusters cannot run, for rescheduling. */
const deschedulerWorkload: WorkloadSpec = {
  component: "karmada-descheduler",
  command: "/bin/karmada-descheduler",
};

/** Deployment of karmada-descheduler. */
export function deschedulerManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, deschedulerWorkload);
}
