import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/** karmada-scheduler: places resource bindings on member clusters. */
const schedulerWorkload: WorkloadSpec = {
  component: "karmada-scheduler",
  command: "/bin/karmada-scheduler",
};

/** Deployment of karmada-scheduler. */
export function schedulerManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, schedulerWorkload);
}
