import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ControlPlaneConfig } from "../lib/controlplane/config";
import { resolveControlPlaneSettings } from "../lib/controlplane/defaults";
import { externalApiServerUrl } from "../lib/controlplane/endpoint";
import { ControlPlaneSettings } from "../lib/controlplane/settings";
import { validateControlPlaneConfig } from "../lib/controlplane/validate";
import { CrdSource } from "../lib/crds";
import { applyObjects } from "../lib/kube/apply";
import { kubeconfigOutput } from "../lib/kubeconfig";
import { namespaceObject } from "../lib/manifests/namespace";
import { hostWorkloadManifests } from "../lib/manifests/workloads";
import { controlPlaneCertificates } from "../lib/pki/certificates";
import { CaSource, IssuedPki, issuePki } from "../lib/pki/issue";
import { PkiFile } from "../lib/pki/layout";
import { RotationSettings } from "../lib/pki/rotation";
import { PkiFiles, createComponentSecrets } from "./controlplane/credentials";
import { deployKarmadaApiObjects } from "./controlplane/karmadaApi";
import { EtcdCluster } from "./etcdCluster";
import { requireKubernetesProvider } from "./providers";

/** Certificates of the control plane. */
export interface ControlPlanePkiConfig {
  /** Bring your own Karmada CA. @default - generated (RSA 3072, 10 years) */
  readonly karmadaCa?: CaSource;
  /** Bring your own front-proxy CA. @default - generated */
  readonly frontProxyCa?: CaSource;
  /** @default 87600 (10 years) */
  readonly caValidityHours?: number;
  /** @default 8760 (1 year) */
  readonly leafValidityHours?: number;
  /**
   * Leaf renewal: leaves are reissued on a normal `pulumi up` once inside the renew window; bump
   * `generation` to rotate now. CAs and the service-account key are never rotated by this.
   * @default renew a third of the validity before expiry, generation 0
   */
  readonly rotation?: RotationSettings;
}

export interface KarmadaControlPlaneArgs extends ControlPlaneConfig {
  /** The etcd Karmada stores its state in (any mode: inCluster, hosts, external). */
  readonly etcd: EtcdCluster;
  /** @default - generated CAs, 1-year leaves renewed a third of their validity early */
  readonly pki?: ControlPlanePkiConfig;
  /** Where Karmada's CRDs come from. @default { kind: "release" } (the release's crds.tar.gz) */
  readonly crds?: CrdSource;
  /** Publish cluster-info and bootstrap RBAC for pull-mode registration. @default true */
  readonly pullModeBootstrap?: boolean;
  /** Create the host namespace (skipped when an in-cluster etcd already created it). @default true */
  readonly createNamespace?: boolean;
  /** Protect every resource of the control plane from deletion. @default false */
  readonly protect?: boolean;
}

/** Files the etcd cluster provides rather than the control-plane PKI. */
const ETCD_FILES: Partial<Record<PkiFile, (etcd: EtcdCluster) => pulumi.Output<string>>> = {
  "etcd-ca.crt": (etcd) => etcd.caCertPem,
  "etcd-client.crt": (etcd) => etcd.clientCertPem,
  "etcd-client.key": (etcd) => etcd.clientKeyPem,
};

/**
 * A Karmada control plane running as workloads on a host Kubernetes cluster (the cluster of the
 * `kubernetes` provider in resource options). Install order is the dependency graph:
 * certificates → Secrets → karmada-apiserver (after etcd) → aggregated apiserver → (through the
 * Karmada provider) namespaces → CRDs → webhooks / APIServices / RBAC / bootstrap → controllers.
 *
 * Child names: PKI `${name}-karmada-ca`, `${name}-front-proxy-ca`, `${name}-<leaf>-cert`, `${name}-sa-key`;
 * Secrets `${name}-<component>-cert|config`, `${name}-admin-config`; provider `${name}-karmada`; one
 * resource per Kubernetes object `${name}-<kind>-[<namespace>-]<name>`.
 */
export class KarmadaControlPlane extends pulumi.ComponentResource {
  /** Resolved settings everything was computed from. */
  public readonly settings: ControlPlaneSettings;
  /** Admin kubeconfig (system:admin / system:masters) for the external endpoint; secret. */
  public readonly adminKubeconfig: pulumi.Output<string>;
  /** URL of karmada-apiserver handed to users and members. */
  public readonly apiEndpoint: string;
  /** Karmada CA certificate (PEM). */
  public readonly caCertPem: pulumi.Output<string>;
  /**
   * Karmada CA private key (secret), for issuing member identities (pull-mode agents) in the same
   * program. Not a stack output. Absent when a user-supplied CA came without its key.
   */
  public readonly caKeyPem?: pulumi.Output<string>;
  /** Provider for karmada-apiserver, for creating Karmada objects (policies, Cluster objects…). */
  public readonly karmadaProvider: k8s.Provider;
  /** Expiry (RFC 3339) of every leaf certificate, by id. */
  public readonly certificateExpiry: pulumi.Output<Record<string, string>>;
  /** Resolves when every object inside karmada-apiserver is registered (CRDs load asynchronously). */
  public readonly karmadaObjectsReady: Promise<pulumi.Resource[]>;
  /** Resolves when the controllers are registered (they wait for the CRDs). */
  public readonly controllersReady: Promise<pulumi.Resource[]>;
  /** The APIService that serves `cluster.karmada.io`; Cluster objects must depend on it. */
  public readonly clusterApiReady: pulumi.Resource[];

  constructor(name: string, args: KarmadaControlPlaneArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("karmada:index:KarmadaControlPlane", name, {}, { ...opts, protect: args.protect ?? opts.protect });

    // defaults → validation (nothing is registered if this throws)
    validateControlPlaneConfig(args);
    const settings = resolveControlPlaneSettings(name, args, { endpoints: args.etcd.clientUrls });
    this.settings = settings;
    const hostProvider = requireKubernetesProvider(this, "KarmadaControlPlane");
    this.apiEndpoint = externalApiServerUrl(settings);

    // certificates
    const pki = this.issueCertificates(name, args.pki ?? {}, settings);
    const files: PkiFiles = (file) => ETCD_FILES[file]?.(args.etcd) ?? pki.file(file);
    this.caCertPem = pki.file("ca.crt");
    this.caKeyPem = pki.files.includes("ca.key") ? pki.file("ca.key") : undefined;
    this.certificateExpiry = pulumi.all({ ...pki.notAfter }) as pulumi.Output<Record<string, string>>;
    this.adminKubeconfig = kubeconfigOutput({
      server: this.apiEndpoint,
      caPem: files("ca.crt"),
      certPem: files("admin.crt"),
      keyPem: files("admin.key"),
      clusterName: "karmada-apiserver",
      userName: "karmada-admin",
      contextName: "karmada-apiserver",
    });

    // host cluster: namespace → Secrets → apiserver (after etcd) → aggregated apiserver
    const host = { parent: this, provider: hostProvider };
    const namespace = this.hostNamespace(name, args, host);
    const secrets = createComponentSecrets(name, settings, files, { ...host, dependsOn: namespace });
    const workloads = hostWorkloadManifests(settings);
    const apiServer = applyObjects(name, workloads.apiServer, {
      ...host,
      dependsOn: [...secrets, args.etcd],
    });
    const aggregated = applyObjects(name, workloads.aggregatedApiServer, { ...host, dependsOn: apiServer });

    // inside karmada-apiserver, once it serves
    this.karmadaProvider = new k8s.Provider(
      `${name}-karmada`,
      {
        kubeconfig: this.adminKubeconfig,
        // a computed kubeconfig must not replace the provider (and with it every Karmada object)
        clusterIdentifier: `karmada-${name}`,
        deleteUnreachable: true,
      },
      { parent: this, dependsOn: apiServer },
    );
    const karmadaApi = deployKarmadaApiObjects(
      name,
      this,
      this.karmadaProvider,
      settings,
      {
        caCertPem: this.caCertPem,
        apiServerUrl: this.apiEndpoint,
        crds: args.crds ?? { kind: "release" },
        options: { pullModeBootstrap: args.pullModeBootstrap },
      },
      aggregated,
    );
    this.karmadaObjectsReady = karmadaApi.all;
    this.clusterApiReady = karmadaApi.apiServices;

    // controllers last: they need the CRDs, webhooks and APIs in place
    this.controllersReady = karmadaApi.all.then((ready) =>
      applyObjects(name, workloads.controllers, { ...host, dependsOn: [...aggregated, ...ready] }),
    );

    this.registerOutputs({
      adminKubeconfig: this.adminKubeconfig,
      apiEndpoint: this.apiEndpoint,
      caCertPem: this.caCertPem,
      certificateExpiry: this.certificateExpiry,
    });
  }

  /**
   * The host namespace: shared with an in-cluster etcd that created it, else created here (unless
   * `createNamespace: false`).
   */
  private hostNamespace(
    name: string,
    args: KarmadaControlPlaneArgs,
    host: { parent: pulumi.Resource; provider: pulumi.ProviderResource },
  ): pulumi.Resource[] {
    const shared = args.etcd.inClusterSettings?.namespace === this.settings.namespace && args.etcd.namespace;
    if (shared) return [args.etcd.namespace!];
    if (args.createNamespace === false) return [];
    return applyObjects(name, [namespaceObject(this.settings.namespace)], host);
  }

  private issueCertificates(
    name: string,
    pki: ControlPlanePkiConfig,
    settings: ControlPlaneSettings,
  ): IssuedPki {
    const certificates = controlPlaneCertificates(settings, { leafValidityHours: pki.leafValidityHours })
      // the etcd client identity is issued by the EtcdCluster, which owns the etcd CA
      .filter((spec) => spec.signer !== "etcd-ca");
    return issuePki({
      name,
      parent: this,
      certificates,
      cas: {
        ...(pki.karmadaCa ? { "karmada-ca": pki.karmadaCa } : {}),
        ...(pki.frontProxyCa ? { "front-proxy-ca": pki.frontProxyCa } : {}),
      },
      caValidityHours: pki.caValidityHours,
      serviceAccountKey: true,
      rotation: pki.rotation,
    });
  }
}
