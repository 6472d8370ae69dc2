import { isIP } from "node:net";
import { hostPort, ResolvedHost } from "../../hosts/spec";
import { checkNotOwned, OwnedFlags } from "../../validation/owned-flags";
import { componentKeyOf } from "../config";
import { FlagValues } from "../flags-render";
import { componentFlags } from "../flags";
import { CONTROL_PLANE_OWNED_FLAGS } from "../flags-owned";
import { ControlPlaneComponent, componentPorts } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { listenAddress } from "./endpoints";
import { componentHostFiles } from "./layout";
import { ControlPlaneHostsSettings } from "./settings";

/**
 * Flags hosts mode owns on top of {@link CONTROL_PLANE_OWNED_FLAGS} (the listen addresses there are
 * owned in both modes): what {@link hostOnlyFlags} adds. `checkExtraArgs` and
 * {@link hostComponentCommand} refuse them in `extraArgs`.
 */
export const HOSTS_OWNED_FLAGS: Readonly<Partial<Record<ControlPlaneComponent, OwnedFlags>>> = {
  "karmada-apiserver": {
    "advertise-address": "hosts.machines[].address",
    "enable-aggregator-routing": "hosts.apiServiceHosts (Endpoints backends turn it on)",
    "shutdown-delay-duration": "hosts.apiServerDrainSeconds",
    "shutdown-send-retry-after": "hosts.apiServerDrainSeconds (on with a drain)",
  },
  "kube-controller-manager": { "cert-dir": "hosts.configDir" },
};

/** Everything `component` owns in hosts mode: both modes' flags and the hosts-only ones. */
export function hostsOwnedFlags(component: ControlPlaneComponent): OwnedFlags {
  return { ...CONTROL_PLANE_OWNED_FLAGS[component], ...HOSTS_OWNED_FLAGS[component] };
}

/**
 * Flags only hosts mode sets: every listener on the host's address (several hosts of a test bed, or a
 * host that also runs etcd or a member, share one machine), karmada-apiserver advertising the host and
 * routing aggregated APIs to Endpoints when they use Endpoints (Karmada's Services have no proxy
 * behind them) and draining behind the load balancer before it stops listening, and
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
    const drain = settings.apiServerDrainSeconds;
    flags["shutdown-delay-duration"] = drain > 0 ? `${drain}s` : undefined;
    flags["shutdown-send-retry-after"] = drain > 0 ? "true" : undefined;
  }
  if (component === "kube-controller-manager") {
    flags["cert-dir"] = componentHostFiles(settings, host, component).servingDir;
  }
  return flags;
}

/**
 * The command line of `component` on `host`: the shared `componentFlags` (same generator as the
 * containers) with host paths and the host-only flags layered over the generated ones; the user's
 * `extraArgs` add tunables but may not touch {@link hostsOwnedFlags}. Returns the full argv, binary first.
 */
export function hostComponentCommand(
  component: ControlPlaneComponent,
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
): string[] {
  const files = componentHostFiles(settings, host, component);
  checkNotOwned(`components.${componentKeyOf(component)}.extraArgs`, cp.components[component].extraArgs, {
    name: "the control plane in hosts mode",
    flags: hostsOwnedFlags(component),
  });
  return [
    files.bin,
    ...componentFlags(
      component,
      cp,
      { pkiDir: files.pkiDir, kubeconfig: files.kubeconfig },
      hostOnlyFlags(component, cp, settings, host),
    ),
  ];
}
