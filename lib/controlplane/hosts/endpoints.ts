import { isIP } from "node:net";
import { hostPort, ResolvedHost } from "../../hosts/spec";
import { ApiBackend } from "../../manifests/karmada/api-backends";
import { KarmadaApiObjectOptions } from "../../manifests/karmada";
import { formatHostPort } from "../../validation/endpoints";
import { componentPorts } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { API_SERVICE_KEYS, ControlPlaneHostsSettings } from "./settings";

/** Address a host's listeners bind: its own IP, or every interface (asked for, or a DNS-named host). */
export function listenAddress(settings: ControlPlaneHostsSettings, host: ResolvedHost): string {
  if (settings.bindAllInterfaces || isIP(host.address) === 0) return "0.0.0.0";
  return host.address;
}

/**
 * karmada-apiserver on `host` itself: what the components on that host use, so each host keeps
 * working with its own API server (the VIP is for clients and members).
 */
export function hostApiServerUrl(cp: ControlPlaneSettings, host: ResolvedHost): string {
  return `https://${hostPort(host.address, cp.apiServer.port)}`;
}

/** Base URL of every webhook (and CRD conversion webhook) karmada-apiserver calls. */
export function hostsWebhookBaseUrl(settings: ControlPlaneHostsSettings): string {
  return `https://${formatHostPort(settings.webhook)}`;
}

/**
 * How karmada-apiserver reaches an aggregated API server on the hosts: Endpoints listing every host's
 * address on the component's secure port (karmada-apiserver runs with aggregator routing, so it dials
 * them directly), or the ExternalName given in `apiServiceHosts`.
 */
function apiBackend(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  component: "karmada-aggregated-apiserver" | "karmada-metrics-adapter" | "karmada-search",
): ApiBackend {
  const front = settings.apiServiceHosts[API_SERVICE_KEYS[component]!];
  if (front !== undefined) return { kind: "externalName", host: front };
  return {
    kind: "endpoints",
    addresses: settings.machines.map((m) => m.address),
    port: componentPorts(component, cp).secure!,
  };
}

/** Options of `karmadaApiObjects` for a control plane on hosts: webhook URL and API backends. */
export function hostsKarmadaApiOptions(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  pullModeBootstrap: boolean | undefined,
): KarmadaApiObjectOptions {
  return {
    webhookBaseUrl: hostsWebhookBaseUrl(settings),
    backends: {
      aggregatedApiserver: apiBackend(cp, settings, "karmada-aggregated-apiserver"),
      metricsAdapter: apiBackend(cp, settings, "karmada-metrics-adapter"),
      search: apiBackend(cp, settings, "karmada-search"),
    },
    pullModeBootstrap,
  };
}
