import { objectNames, serviceDnsName } from "./names";
import { ControlPlaneSettings } from "./settings";

const hostInUrl = (host: string): string => (host.includes(":") ? `[${host}]` : host);

/** URL the control plane's own components use: the apiserver Service inside the host cluster. */
export function internalApiServerUrl(settings: ControlPlaneSettings): string {
  const host = serviceDnsName(
    objectNames.workload("karmada-apiserver"),
    settings.namespace,
    settings.clusterDomain,
  );
  return `https://${host}:${settings.apiServer.port}`;
}

/**
 * URL handed to users and members (admin kubeconfig, cluster-info, agents): the external VIP/domain
 * when given, else the in-cluster Service name.
 */
export function externalApiServerUrl(settings: ControlPlaneSettings): string {
  const external = settings.apiServer.externalEndpoint;
  return external ? `https://${hostInUrl(external.host)}:${external.port}` : internalApiServerUrl(settings);
}
