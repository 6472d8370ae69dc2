import { KarmadaComponent } from "../catalog/components";
import { ControlPlaneSettings } from "../controlplane/settings";
import { validateInteger } from "../validation/numbers";
import { KUBECONFIG_COMPONENTS, PkiFile } from "./layout";
import { apiServerSans, EtcdPkiParams, etcdServerSans, SanList, ServingComponent, servingSans } from "./sans";
import { PROVIDER_SLOTS, ProviderSlot } from "./rotation";
import { AllowedUse } from "./usages";

/**
 * The three certificate authorities. Separate CAs keep a front-proxy or etcd client certificate from
 * passing as a Karmada user, and a Karmada client certificate from opening etcd.
 */
export type CaId = "karmada-ca" | "front-proxy-ca" | "etcd-ca";

/** All CA ids, in the order they are created. */
export const CA_IDS: readonly CaId[] = ["karmada-ca", "front-proxy-ca", "etcd-ca"];

/** Default CA validity: 10 years. */
export const DEFAULT_CA_VALIDITY_HOURS = 87600;
/** Default leaf validity: 1 year. */
export const DEFAULT_LEAF_VALIDITY_HOURS = 8760;

/** Usages of every CA certificate. */
const CA_ALLOWED_USES: readonly AllowedUse[] = ["cert_signing", "crl_signing", "digital_signature"];
/** Usages every leaf carries, whatever it is for (RSA TLS needs both). */
export const LEAF_BASE_USES: readonly AllowedUse[] = ["digital_signature", "key_encipherment"];

/** A certificate authority: subject and where its certificate and key go. */
export interface CaSpec {
  readonly id: CaId;
  /** Subject CN. */
  readonly commonName: string;
  /** Always {@link CA_ALLOWED_USES}. */
  readonly allowedUses: readonly AllowedUse[];
  /** PKI files holding the CA certificate and key. */
  readonly files: { readonly cert: PkiFile; readonly key: PkiFile };
}

/** The CAs, by id. */
export const CA_SPECS: Readonly<Record<CaId, CaSpec>> = {
  "karmada-ca": {
    id: "karmada-ca",
    commonName: "karmada",
    allowedUses: CA_ALLOWED_USES,
    files: { cert: "ca.crt", key: "ca.key" },
  },
  "front-proxy-ca": {
    id: "front-proxy-ca",
    commonName: "front-proxy-ca",
    allowedUses: CA_ALLOWED_USES,
    files: { cert: "front-proxy-ca.crt", key: "front-proxy-ca.key" },
  },
  "etcd-ca": {
    id: "etcd-ca",
    commonName: "etcd-ca",
    allowedUses: CA_ALLOWED_USES,
    files: { cert: "etcd-ca.crt", key: "etcd-ca.key" },
  },
};

/** One leaf certificate, as pure data: everything the tls resources (or openssl) need to issue it. */
export interface CertSpec {
  /** Stable id; part of the Pulumi child names (`<name>-<id>-key`, `-csr`, `-cert`). */
  readonly id: string;
  /** Subject CN; Kubernetes reads it as the user name of a client certificate. */
  readonly commonName: string;
  /** Subject organizations; Kubernetes reads them as groups. The tls provider takes at most one. */
  readonly organizations: readonly string[];
  /** The CA that signs it. */
  readonly signer: CaId;
  /** Key usages and extended key usages, tls-provider names. */
  readonly allowedUses: readonly AllowedUse[];
  /** DNS SANs (validated, de-duplicated). */
  readonly dnsNames: readonly string[];
  /** IP SANs (canonical text). */
  readonly ipAddresses: readonly string[];
  /** Lifetime of each issued certificate, in hours. */
  readonly validityHours: number;
  /** PKI files holding the certificate and key. */
  readonly files: { readonly cert: PkiFile; readonly key: PkiFile };
  /**
   * Set on the Pulumi providers' identities: renewed on the slot's own schedule (rotation.ts
   * `slotRotationTrigger`), not with the other leaves. @default - renewed with the other leaves
   */
  readonly rotationSlot?: ProviderSlot;
}

/** Options shared by the certificate tables. */
export interface CertificateOptions {
  /** Validity of every leaf, in hours. @default 8760 (1 year) */
  readonly leafValidityHours?: number;
}

type Purpose = "server" | "client" | "peer";
const PURPOSE_USES: Readonly<Record<Purpose, readonly AllowedUse[]>> = {
  server: [...LEAF_BASE_USES, "server_auth"],
  client: [...LEAF_BASE_USES, "client_auth"],
  // etcd members dial each other: each side is server and client.
  peer: [...LEAF_BASE_USES, "server_auth", "client_auth"],
};

const NO_SANS: SanList = { dnsNames: [], ipAddresses: [] };

/** Ids of the leaves this module defines; each names its files (`<id>.crt`, `<id>.key`). */
type LeafId =
  | "apiserver"
  | "admin"
  | `${KarmadaComponent}-client`
  | "front-proxy-client"
  | "etcd-client"
  | "aggregated-apiserver"
  | "webhook"
  | "search"
  | "metrics-adapter"
  | "etcd-server"
  | "etcd-peer"
  | "etcd-healthcheck-client"
  | `provider-${ProviderSlot}`;

function leaf(
  id: LeafId,
  subject: { commonName: string; organizations?: readonly string[] },
  signer: CaId,
  purpose: Purpose,
  sans: SanList,
  validityHours: number,
): CertSpec {
  return {
    id,
    commonName: subject.commonName,
    organizations: subject.organizations ?? [],
    signer,
    allowedUses: PURPOSE_USES[purpose],
    dnsNames: sans.dnsNames,
    ipAddresses: sans.ipAddresses,
    validityHours,
    files: { cert: `${id}.crt` as const, key: `${id}.key` as const },
  };
}

function leafValidity(options: CertificateOptions): number {
  return validateInteger("leafValidityHours", options.leafValidityHours ?? DEFAULT_LEAF_VALIDITY_HOURS, 1);
}

/** Subject of the admin identity: `system:masters` is bound to cluster-admin by the default RBAC. */
const ADMIN_SUBJECT = { commonName: "system:admin", organizations: ["system:masters"] } as const;

/**
 * Subject of a provider slot: the identity Pulumi's providers for karmada-apiserver use (they create the
 * objects inside Karmada, so `system:masters` like the admin).
 */
const providerSubject = (slot: ProviderSlot) =>
  ({ commonName: `pulumi-karmada:provider-${slot}`, organizations: ["system:masters"] }) as const;

/** Common name of a component's client identity (the website's certificate framework naming). */
const componentCommonName = (component: KarmadaComponent): string => `system:karmada:${component}`;

/**
 * Leaf certificates of a control plane: apiserver serving cert, admin client, one client identity per
 * enabled component with a kubeconfig, front-proxy client, etcd client, the serving certs of the
 * aggregated apiserver, webhook and — when enabled — search and metrics-adapter, and the two provider
 * slots (Pulumi's own identities towards karmada-apiserver, never written to a host or Secret).
 */
export function controlPlaneCertificates(
  settings: ControlPlaneSettings,
  options: CertificateOptions = {},
): CertSpec[] {
  const hours = leafValidity(options);
  const enabled = (c: KarmadaComponent): boolean => settings.components[c]?.enabled ?? false;
  const serving = (c: ServingComponent, id: LeafId): CertSpec =>
    leaf(id, { commonName: c }, "karmada-ca", "server", servingSans(settings, c), hours);
  const optionalServing: [ServingComponent, LeafId][] = [
    ["karmada-search", "search"],
    ["karmada-metrics-adapter", "metrics-adapter"],
  ];
  return [
    leaf(
      "apiserver",
      { commonName: "karmada-apiserver" },
      "karmada-ca",
      "server",
      apiServerSans(settings),
      hours,
    ),
    leaf("admin", ADMIN_SUBJECT, "karmada-ca", "client", NO_SANS, hours),
    ...KUBECONFIG_COMPONENTS.filter(enabled).map((c) =>
      leaf(
        `${c}-client`,
        { commonName: componentCommonName(c), organizations: ["system:masters"] },
        "karmada-ca",
        "client",
        NO_SANS,
        hours,
      ),
    ),
    leaf(
      "front-proxy-client",
      { commonName: "front-proxy-client" },
      "front-proxy-ca",
      "client",
      NO_SANS,
      hours,
    ),
    leaf("etcd-client", { commonName: "karmada-etcd-client" }, "etcd-ca", "client", NO_SANS, hours),
    serving("karmada-aggregated-apiserver", "aggregated-apiserver"),
    serving("karmada-webhook", "webhook"),
    ...optionalServing.filter(([c]) => enabled(c)).map(([c, stem]) => serving(c, stem)),
    ...PROVIDER_SLOTS.map((slot): CertSpec => ({
      ...leaf(`provider-${slot}`, providerSubject(slot), "karmada-ca", "client", NO_SANS, hours),
      rotationSlot: slot,
    })),
  ];
}

/**
 * Leaf certificates of an etcd cluster, all signed by the etcd CA: the server cert (clients and probes
 * dial it), the peer cert (members dial each other), and a health-check client for probes and etcdctl.
 * Server and peer carry the same SANs so one pair of files serves every member.
 */
export function etcdCertificates(params: EtcdPkiParams, options: CertificateOptions = {}): CertSpec[] {
  const hours = leafValidity(options);
  const sans = etcdServerSans(params);
  return [
    leaf("etcd-server", { commonName: "karmada-etcd-server" }, "etcd-ca", "peer", sans, hours),
    leaf("etcd-peer", { commonName: "karmada-etcd-peer" }, "etcd-ca", "peer", sans, hours),
    leaf(
      "etcd-healthcheck-client",
      { commonName: "karmada-etcd-healthcheck-client" },
      "etcd-ca",
      "client",
      NO_SANS,
      hours,
    ),
  ];
}
