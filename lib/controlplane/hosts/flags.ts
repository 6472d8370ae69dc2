import { isIP } from "node:net";
import { hostPort, ResolvedHost } from "../../hosts/spec";
import { FlagValues } from "../flags-render";
import { componentFlags } from "../flags";
import { ControlPlaneComponent, componentPorts } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { listenAddress } from "./endpoints";
import { componentHostFiles } from "./layout";
import { ControlPlaneHostsSettings } from "./settings";

/**
 * Flags only hosts mode sets: every listener on the host's address (several hosts of a test bed, or a
 * host that also runs etcd or a member, share one machine), karmada-apiserver advertising the host and
 * routing aggregated APIs to Endpoints when they use Endpoints (Karmada's Services have no proxy
 * behind them), and
 * kube-controller-manager's self-signed serving certificate kept in its own directory.
 */
function hostOnlyFlags(
  component: ControlPlaneComponent,
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
): FlagValues {
  const listen = listenAddress(settings, host);
  const ports = componentPorts(component, cp);
  const at = (port: number | undefined) => (port === undefined ? undefined : hostPort(listen, port));
  const flags: Record<string, string | undefined> = {
    "bind-address": ports.secure === undefined ? undefined : listen,
    "health-probe-bind-address": at(ports.health),
    "metrics-bind-address": at(ports.metrics),
  };
  if (component === "karmada-apiserver") {
    flags["advertise-address"] = isIP(host.address) === 0 ? undefined : host.address;
    flags["enable-aggregator-routing"] = settings.aggregatorRouting ? "true" : undefined;
  }
  if (component === "kube-controller-manager") {
    flags["cert-dir"] = componentHostFiles(settings, host, component).servingDir;
  }
  return flags;
}

/**
 * The command line of `component` on `host`: the shared `componentFlags` (same generator as the
 * containers) with host paths, the host-only flags layered over the generated ones, and the user's
 * `extraArgs` over both. Returns the full argv, binary first.
 */
export function hostComponentCommand(
  component: ControlPlaneComponent,
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
): string[] {
  const files = componentHostFiles(settings, host, component);
  const own = cp.components[component];
  const hostFlags = Object.fromEntries(
    Object.entries(hostOnlyFlags(component, cp, settings, host)).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
  const withHostFlags: ControlPlaneSettings = {
    ...cp,
    components: { ...cp.components, [component]: { ...own, extraArgs: { ...hostFlags, ...own.extraArgs } } },
  };
  return [
    files.bin,
    ...componentFlags(component, withHostFlags, { pkiDir: files.pkiDir, kubeconfig: files.kubeconfig }),
  ];
}
