import { rooted } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { ControlPlaneComponent } from "../flags-ports";
import { ControlPlaneHostsSettings } from "./settings";

/** Absolute (rooted) paths of one component on one host. */
export interface ComponentHostFiles {
  /** The binary. */
  readonly bin: string;
  /** `<configDir>/<component>`: everything the component reads, nothing another component needs. */
  readonly dir: string;
  /** Certificates and keys (the component's PKI files only). */
  readonly pkiDir: string;
  /** Its kubeconfig for karmada-apiserver. */
  readonly kubeconfig: string;
  /** Where a binary without a given serving certificate writes its self-signed one. */
  readonly servingDir: string;
  /** Fingerprint of the binary, flags and files the running process was started with. */
  readonly appliedFile: string;
  /** Log file (supervisor runner; systemd logs to the journal). */
  readonly logFile: string;
  /** Supervisor pid files. */
  readonly stateDir: string;
  /** systemd unit / supervisor name. */
  readonly service: string;
}

/** Unit name of a component's service: `pk-<component>`, next to etcd's `pk-etcd`. */
const serviceName = (component: ControlPlaneComponent): string => `pk-${component}`;

/** Where one component's files live on `host`, its root applied. */
export function componentHostFiles(
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): ComponentHostFiles {
  const at = (path: string) => rooted(host.root, path);
  const dir = at(`${settings.paths.configDir}/${component}`);
  const binary = settings.binaries[component];
  return {
    bin: at(`${settings.paths.binDir}/${binary?.file ?? component}`),
    dir,
    pkiDir: `${dir}/pki`,
    kubeconfig: `${dir}/karmada.config`,
    servingDir: `${dir}/serving`,
    appliedFile: `${dir}/.applied`,
    logFile: at(`${settings.paths.logDir}/${component}.log`),
    stateDir: at(`${settings.paths.stateDir}/${serviceName(component)}`),
    service: serviceName(component),
  };
}

/** The host's download cache for artifacts. */
export const hostCacheDir = (settings: ControlPlaneHostsSettings, host: ResolvedHost): string =>
  rooted(host.root, settings.paths.cacheDir);
