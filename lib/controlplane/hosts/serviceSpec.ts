import { ServiceSpec } from "../../hosts/service";
import { ResolvedHost } from "../../hosts/spec";
import { ControlPlaneComponent } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { hostComponentCommand } from "./flags";
import { componentHostFiles } from "./layout";
import { ControlPlaneHostsSettings } from "./settings";

/** A component on a host as a service: its command line, log file and state dir. */
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
  };
}
