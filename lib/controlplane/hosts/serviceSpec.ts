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
 * reconnect, to this host once it is back or through the VIP to another. karmada-apiserver's drain
 * comes on top ({@link componentStopGraceSeconds}).
 */
export const CONTROL_PLANE_STOP_GRACE_SECONDS = 5;

/**
 * Seconds a control-plane component gets between TERM and KILL when it leaves the host for good (the
 * host or the component is removed, or the control plane destroyed). Its clients have moved to another
 * host through the VIP or are going too; in-flight requests finish well within it. An API server waits
 * for its open watches on TERM until its request timeout (60 s), so it always takes the whole grace: at
 * 5 s, destroying two API servers rolling over two hosts spent ≈ 20 s waiting for nobody.
 */
export const CONTROL_PLANE_REMOVE_GRACE_SECONDS = 1;

/**
 * Seconds `component` gets between TERM and KILL on a restart: karmada-apiserver serves on through its
 * drain ({@link ControlPlaneHostsSettings.apiServerDrainSeconds}) first.
 */
export function componentStopGraceSeconds(
  settings: ControlPlaneHostsSettings,
  component: ControlPlaneComponent,
): number {
  const drain = component === "karmada-apiserver" ? settings.apiServerDrainSeconds : 0;
  return CONTROL_PLANE_STOP_GRACE_SECONDS + drain;
}

/** A component on a host as a service: its command line, log file, state dir and stop graces. */
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
    stopGraceSeconds: componentStopGraceSeconds(settings, component),
    removeGraceSeconds: CONTROL_PLANE_REMOVE_GRACE_SECONDS,
  };
}
