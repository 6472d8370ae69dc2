import { ServiceSpec } from "../../hosts/service";
import { ResolvedHost } from "../../hosts/spec";
import { ControlPlaneComponent } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { hostComponentCommand } from "./flags";
import { componentHostFiles } from "./layout";
import { ControlPlaneHostsSettings } from "./settings";

/**
 * Seconds a control-plane component gets between TERM and KILL. Enough to finish its requests and
 * hand over leadership; an API server still serving long-running watches (kube-controller-manager's,
 * through the aggregator) would otherwise hold on for its whole request timeout, 60 s. Its clients
 * reconnect, to this host once it is back or through the VIP to another.
 */
export const CONTROL_PLANE_STOP_GRACE_SECONDS = 5;

/** A component on a host as a service: its command line, log file, state dir and stop grace. */
export function serviceSpec(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): ServiceSpec {
  const files = componentHostFiles(settings, host, component);
  return {
    name: files.service,
    description: `${component} of Karmada control plane ${cp.name} (pulumi-karmada)`,
    exec: hostComponentCommand(component, cp, settings, host),
    logFile: files.logFile,
    stateDir: files.stateDir,
    stopGraceSeconds: CONTROL_PLANE_STOP_GRACE_SECONDS,
  };
}
