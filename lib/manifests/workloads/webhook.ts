import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { WorkloadSpec, componentManifests } from "./workload";

/** karmada-webhook: admission webhooks of the Karmada APIs; its Service maps 443 to the webhook port. */
const webhookWorkload: WorkloadSpec = {
  component: "karmada-webhook",
  command: "/bin/karmada-webhook",
  service: { port: 443 },
};

/** Deployment and Service (443 → 8443) of karmada-webhook. */
export function webhookManifests(settings: ControlPlaneSettings): KubeObject[] {
  return componentManifests(settings, webhookWorkload);
}
