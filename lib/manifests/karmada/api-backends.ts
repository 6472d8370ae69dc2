import { isIP } from "node:net";
import { Chart } from "cdk8s";
import { k8s } from "cdk8s-plus-33";
import { KarmadaComponent } from "../../catalog/components";
import { objectNames, serviceDnsName } from "../../controlplane/names";
import { ControlPlaneSettings } from "../../controlplane/settings";
import { check, show } from "../../validation/errors";

/** Port every APIService backend Service exposes inside karmada-apiserver (the APIService default). */
export const API_BACKEND_PORT = 443;
const PORT_NAME = "https";

/**
 * How karmada-apiserver reaches an aggregated API server (karmada-aggregated-apiserver, -search,
 * -metrics-adapter). Both shapes are a Service in `karmada-system` inside Karmada named after the
 * component, which the APIService refers to.
 * - `externalName`: a DNS name karmada-apiserver resolves, normally the component's host-cluster Service
 *   (`<component>.<host-ns>.svc.<domain>`), reached on port 443.
 * - `endpoints`: fixed IPs and port, for components running on hosts. karmada-apiserver must run with
 *   `--enable-aggregator-routing=true`, since the Service's ClusterIP routes nowhere (nothing proxies
 *   Karmada's own Services).
 */
export type ApiBackend =
  | { readonly kind: "externalName"; readonly host: string }
  | { readonly kind: "endpoints"; readonly addresses: readonly string[]; readonly port: number };

/** The containerized default: the component's Service on the host cluster, by its full DNS name. */
export function hostServiceBackend(
  settings: Pick<ControlPlaneSettings, "namespace" | "clusterDomain">,
  component: KarmadaComponent,
): ApiBackend {
  return {
    kind: "externalName",
    host: serviceDnsName(objectNames.workload(component), settings.namespace, settings.clusterDomain),
  };
}

const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Checks a backend; `field` names it in errors. */
export function validateApiBackend(backend: ApiBackend, field: string): void {
  if (backend.kind === "externalName") {
    check(
      DNS_NAME.test(backend.host) && backend.host.length <= 253,
      `${field}.host`,
      `${show(backend.host)} is not a DNS name`,
      "lower-case DNS name",
    );
    return;
  }
  check(backend.addresses.length > 0, `${field}.addresses`, "no address given", "one or more IP addresses");
  backend.addresses.forEach((address, i) =>
    check(
      isIP(address) !== 0,
      `${field}.addresses[${i}]`,
      `${show(address)} is not an IP address`,
      "IPv4 or IPv6",
    ),
  );
  check(
    Number.isInteger(backend.port) && backend.port >= 1 && backend.port <= 65535,
    `${field}.port`,
    `${show(backend.port)} is out of range`,
    "1-65535",
  );
}

/**
 * Adds the backend Service of an aggregated API to `chart`: an ExternalName Service, or a selector-less
 * Service with Endpoints (read by older API servers) and one EndpointSlice per IP family (read by
 * current ones). The slices are marked as ours so no endpoint controller adopts or rewrites them.
 */
export function addApiBackend(chart: Chart, serviceName: string, backend: ApiBackend): void {
  const namespace = objectNames.karmadaSystemNamespace;
  if (backend.kind === "externalName") {
    new k8s.KubeService(chart, `${serviceName}-service`, {
      metadata: { name: serviceName, namespace },
      spec: { type: "ExternalName", externalName: backend.host },
    });
    return;
  }
  new k8s.KubeService(chart, `${serviceName}-service`, {
    metadata: { name: serviceName, namespace },
    spec: {
      type: "ClusterIP",
      ports: [
        { name: PORT_NAME, port: API_BACKEND_PORT, targetPort: k8s.IntOrString.fromNumber(backend.port) },
      ],
    },
  });
  new k8s.KubeEndpoints(chart, `${serviceName}-endpoints`, {
    metadata: { name: serviceName, namespace },
    subsets: [
      {
        addresses: backend.addresses.map((ip) => ({ ip })),
        ports: [{ name: PORT_NAME, port: backend.port }],
      },
    ],
  });
  for (const family of [4, 6] as const) {
    const addresses = backend.addresses.filter((ip) => isIP(ip) === family);
    if (addresses.length === 0) continue;
    new k8s.KubeEndpointSlice(chart, `${serviceName}-ipv${family}`, {
      metadata: {
        name: `${serviceName}-ipv${family}`,
        namespace,
        labels: {
          "kubernetes.io/service-name": serviceName,
          "endpointslice.kubernetes.io/managed-by": "pulumi-karmada",
        },
      },
      addressType: `IPv${family}`,
      endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [{ name: PORT_NAME, port: backend.port, protocol: "TCP" }],
    });
  }
}
