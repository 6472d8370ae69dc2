import { KarmadaComponent } from "../catalog/components";
import { ControlPlaneSettings } from "../controlplane/settings";
import { objectNames } from "../controlplane/names";
import { cidrAddress, validateCidr } from "../validation/cidr";
import { validateDns1123Label, validateDns1123Subdomain, validateDnsSan } from "../validation/dns";
import { validateUnique } from "../validation/duplicates";
import { formatIp, parseIp } from "../validation/ip";

/** Subject alternative names of a certificate, split the way the tls provider takes them. */
export interface SanList {
  /** DNS names and wildcards, as given (lower case by validation). */
  readonly dnsNames: readonly string[];
  /** IP addresses in canonical text. */
  readonly ipAddresses: readonly string[];
}

/** One SAN entry with the dotted field it came from (for error messages). */
export interface SanEntry {
  /** Dotted path named in the error when `value` is invalid. */
  readonly field: string;
  /** A DNS name, wildcard or IP address. */
  readonly value: string;
}

/** Entries derived by us from one setting: errors name the setting. */
const derived = (field: string, values: readonly string[]): SanEntry[] =>
  values.map((value) => ({ field, value }));

/** Entries of a user list: errors name the item (`apiServer.extraSans[2]`); repeats within it are errors. */
function userList(field: string, values: readonly string[]): SanEntry[] {
  validateUnique(field, values, canonicalSan);
  return values.map((value, index) => ({ field: `${field}[${index}]`, value }));
}

/** The form two SANs are compared in: IPs canonical, names as they are. */
function canonicalSan(value: string): string {
  const ip = typeof value === "string" ? parseIp(value) : undefined;
  return ip ? formatIp(ip) : value;
}

/**
 * Classifies SAN entries as IP (canonical text) or DNS name (validated), dropping repeats. Order is the
 * order of first appearance, so the list — and with it the CSR — only changes when the inputs do.
 */
export function buildSanList(entries: readonly SanEntry[]): SanList {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const { field, value } of entries) {
    const ip = typeof value === "string" ? parseIp(value) : undefined;
    const list = ip ? ipAddresses : dnsNames;
    const text = ip ? formatIp(ip) : validateDnsSan(field, value);
    if (!list.includes(text)) list.push(text);
  }
  return { dnsNames, ipAddresses };
}

/** Names a Service answers to from inside its cluster: short, `.ns`, `.ns.svc`, `.ns.svc.<domain>`. */
export function serviceDnsNames(service: string, namespace: string, clusterDomain: string): string[] {
  return [
    service,
    `${service}.${namespace}`,
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.${clusterDomain}`,
  ];
}

/** Loopback names every serving certificate carries, so probes and local clients can verify it. */
const LOOPBACK = ["localhost", "127.0.0.1"];

/** The `kubernetes` Service names inside Karmada (clients built with in-cluster config use them). */
const KUBERNETES_SERVICE_NAMES = ["kubernetes", "kubernetes.default", "kubernetes.default.svc"];

function hostPlacement(settings: ControlPlaneSettings): { namespace: string; clusterDomain: string } {
  return {
    namespace: validateDns1123Label("namespace", settings.namespace),
    clusterDomain: validateDns1123Subdomain("clusterDomain", settings.clusterDomain),
  };
}

/**
 * SANs of the karmada-apiserver serving certificate: loopback, the in-Karmada `kubernetes` Service (names
 * and its ClusterIP, the first address of `apiServer.serviceSubnet`), the host-cluster Service names,
 * wildcards for the host namespace, then `apiServer.extraSans` and `apiServer.externalEndpoint.host`.
 */
export function apiServerSans(settings: ControlPlaneSettings): SanList {
  const { namespace, clusterDomain } = hostPlacement(settings);
  const subnet = validateCidr("apiServer.serviceSubnet", settings.apiServer.serviceSubnet);
  const service = objectNames.workload("karmada-apiserver");
  const external = settings.apiServer.externalEndpoint;
  return buildSanList([
    ...derived("apiServer", [...LOOPBACK, ...KUBERNETES_SERVICE_NAMES]),
    ...derived("apiServer.serviceSubnet", [cidrAddress("apiServer.serviceSubnet", subnet, 1)]),
    ...derived("namespace", serviceDnsNames(service, namespace, clusterDomain)),
    ...derived("namespace", [`*.${namespace}.svc`, `*.${namespace}.svc.${clusterDomain}`]),
    ...userList("apiServer.extraSans", settings.apiServer.extraSans),
    ...(external ? derived("apiServer.externalEndpoint.host", [external.host]) : []),
  ]);
}

/** Components that serve HTTPS to karmada-apiserver (aggregated APIs, webhooks). */
export type ServingComponent = Extract<
  KarmadaComponent,
  "karmada-aggregated-apiserver" | "karmada-webhook" | "karmada-search" | "karmada-metrics-adapter"
>;

/**
 * SANs of a serving certificate for an aggregated API server or webhook: its Service names in the host
 * namespace and in `karmada-system`. karmada-apiserver reaches it through an ExternalName Service of the
 * same name in `karmada-system` inside Karmada and verifies the certificate against that name.
 */
export function servingSans(settings: ControlPlaneSettings, component: ServingComponent): SanList {
  const { namespace, clusterDomain } = hostPlacement(settings);
  const service = objectNames.workload(component);
  const system = objectNames.karmadaSystemNamespace;
  return buildSanList([
    ...derived("namespace", serviceDnsNames(service, namespace, clusterDomain)),
    ...derived("namespace", serviceDnsNames(service, system, clusterDomain).slice(1)),
  ]);
}

/** One etcd member: its `--name` and the addresses (hostnames or IPs) peers and clients dial. */
export interface EtcdMemberAddress {
  /** Member name (a DNS-1123 label, unique). */
  readonly name: string;
  /** Hostnames and/or IPs the member is reached at. */
  readonly addresses: readonly string[];
}

/** Where etcd runs when it runs on a Kubernetes cluster (StatefulSet mode). */
export interface EtcdInClusterPlacement {
  /** Namespace of the StatefulSet and Services. */
  readonly namespace: string;
  /** DNS domain of that cluster. */
  readonly clusterDomain: string;
  /** Service clients connect to. */
  readonly clientService: string;
  /** Headless Service giving each pod a stable DNS name (`<pod>.<headless>.<ns>.svc`). */
  readonly headlessService: string;
}

/** What the etcd certificates depend on; both the in-cluster and the hosts mode fill it in. */
export interface EtcdPkiParams {
  /** Every member of the cluster. */
  readonly members: readonly EtcdMemberAddress[];
  /** Kubernetes placement; absent when etcd runs on hosts. @default hosts mode (no Service names) */
  readonly inCluster?: EtcdInClusterPlacement;
  /** Additional DNS names and IPs for the server and peer certificates. @default [] */
  readonly extraSans?: readonly string[];
}

/**
 * SANs of the etcd server and peer certificates: loopback, the client Service names and a wildcard for
 * the members behind the headless Service (in-cluster), every member address, then `extraSans`.
 */
export function etcdServerSans(params: EtcdPkiParams): SanList {
  validateUnique(
    "members",
    params.members.map((m, i) => validateDns1123Label(`members[${i}].name`, m.name)),
  );
  const placement = params.inCluster;
  const inCluster: SanEntry[] = [];
  if (placement) {
    const namespace = validateDns1123Label("inCluster.namespace", placement.namespace);
    const domain = validateDns1123Subdomain("inCluster.clusterDomain", placement.clusterDomain);
    const client = validateDns1123Label("inCluster.clientService", placement.clientService);
    const headless = validateDns1123Label("inCluster.headlessService", placement.headlessService);
    inCluster.push(
      ...derived("inCluster.clientService", serviceDnsNames(client, namespace, domain)),
      ...derived("inCluster.headlessService", [
        `*.${headless}.${namespace}.svc`,
        `*.${headless}.${namespace}.svc.${domain}`,
      ]),
    );
  }
  return buildSanList([
    ...derived("etcd", LOOPBACK),
    ...inCluster,
    ...params.members.flatMap((m, i) => userList(`members[${i}].addresses`, m.addresses)),
    ...userList("extraSans", params.extraSans ?? []),
  ]);
}
