import { CertSpec } from "../../pki/certificates";
import { buildSanList, SanEntry } from "../../pki/sans";
import { ControlPlaneHostsSettings } from "./settings";

/**
 * The control plane's certificate table for hosts: the same leaves as containers
 * (`controlPlaneCertificates`), with the names the hosts are reached at added to the serving
 * certificates — every host address (components and health checks dial a host directly), the webhook
 * endpoint for karmada-webhook and the `apiServiceHosts` fronts for the aggregated API servers. The
 * external endpoint is in the apiserver's SANs already.
 */
export function hostsCertificates(
  specs: readonly CertSpec[],
  settings: ControlPlaneHostsSettings,
): CertSpec[] {
  const machines: SanEntry[] = settings.machines.map((m, i) => ({
    field: `hosts.machines[${i}].address`,
    value: m.address,
  }));
  const fronts = settings.apiServiceHosts;
  const extra: Record<string, SanEntry[]> = {
    apiserver: machines,
    "aggregated-apiserver": [
      ...machines,
      ...(fronts.aggregatedApiserver
        ? [{ field: "hosts.apiServiceHosts.aggregatedApiserver", value: fronts.aggregatedApiserver }]
        : []),
    ],
    search: [
      ...machines,
      ...(fronts.search ? [{ field: "hosts.apiServiceHosts.search", value: fronts.search }] : []),
    ],
    "metrics-adapter": [
      ...machines,
      ...(fronts.metricsAdapter
        ? [{ field: "hosts.apiServiceHosts.metricsAdapter", value: fronts.metricsAdapter }]
        : []),
    ],
    webhook: [...machines, { field: "hosts.webhookEndpoint", value: settings.webhook.host }],
  };
  return specs.map((spec) => {
    const added = extra[spec.id];
    if (!added) return spec;
    const sans = buildSanList([
      ...spec.dnsNames.map((value) => ({ field: spec.id, value })),
      ...spec.ipAddresses.map((value) => ({ field: spec.id, value })),
      ...added,
    ]);
    return { ...spec, dnsNames: sans.dnsNames, ipAddresses: sans.ipAddresses };
  });
}
