import * as command from "@pulumi/command";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { externalApiServerUrl } from "../lib/controlplane/endpoint";
import {
  ControlPlaneHostsSettings,
  ControlPlaneMode,
  hostsCertificates,
  hostsKarmadaApiOptions,
} from "../lib/controlplane/hosts";
import { ControlPlaneSettings } from "../lib/controlplane/settings";
import { CONTAINERIZED_INSTALL_ORDER, InstallPhase } from "../lib/controlplane/installOrder";
import { KubeObject, applyObjects } from "../lib/kube/apply";
import { kubeconfigOutput } from "../lib/kubeconfig";
import { KarmadaApiObjectOptions } from "../lib/manifests/karmada";
import { namespaceObject } from "../lib/manifests/namespace";
import { hostWorkloadManifests } from "../lib/manifests/workloads";
import { controlPlaneCertificates } from "../lib/pki/certificates";
import { IssuedPki, issuePki } from "../lib/pki/issue";
import { checkedCaSource } from "../lib/pki/config-check";
import { PkiFile } from "../lib/pki/layout";
import { PkiFiles, createComponentSecrets, resolveCertificatesChecksum } from "./controlplane/credentials";
import { deployControlPlaneOnHosts } from "./controlplane/hosts";
import { InstallGraph } from "./controlplane/installGraph";
import { kubeconfigOnceServing } from "./controlplane/serving";
import { KarmadaApiResources, deployKarmadaApiObjects } from "./controlplane/karmadaApi";
import { EtcdCluster } from "./etcdCluster";
import { ControlPlanePlan, planControlPlane } from "./controlplane/plan";
import type { ControlPlanePkiConfig, KarmadaControlPlaneArgs } from "./controlplane/args";

export type { ControlPlanePkiConfig, KarmadaControlPlaneArgs } from "./controlplane/args";

/** What either mode deployed, for the component's public fields. */
interface Deployed {
  readonly provider: k8s.Provider;
  readonly karmadaApi: KarmadaApiResources;
  /** The controller workloads, registered now; each waits for every object in `karmadaApi`. */
  readonly controllers: pulumi.Resource[];
  readonly hostCommands?: Readonly<Record<string, command.remote.Command>>;
}

/** Files the etcd cluster provides rather than the control-plane PKI. */
const ETCD_FILES: Partial<Record<PkiFile, (etcd: EtcdCluster) => pulumi.Output<string>>> = {
  "etcd-ca.crt": (etcd) => etcd.caCertPem,
  "etcd-client.crt": (etcd) => etcd.clientCertPem,
  "etcd-client.key": (etcd) => etcd.clientKeyPem,
};

/**
 * A Karmada control plane, either as workloads on a host Kubernetes cluster (`containerized`: the
 * cluster of the `kubernetes` provider in resource options) or as services on machines over SSH
 * (`hosts`). Both share the PKI, flags, CRD bundle and Karmada-side objects. Install order is the
 * dependency graph: certificates → karmada-apiserver (after etcd; Secrets first when containerized) →
 * (through the Karmada provider) namespaces → CRDs → aggregated apiserver (hosts: after the CRDs) →
 * webhooks / APIServices / RBAC / bootstrap → controllers.
 *
 * Child names: PKI `${name}-karmada-ca`, `${name}-front-proxy-ca`, `${name}-<leaf>-cert`, `${name}-sa-key`;
 * provider `${name}-karmada`; one resource per Kubernetes object `${name}-<kind>-[<namespace>-]<name>`.
 * Containerized: Secrets `${name}-<component>-cert|config`. Hosts: commands `${name}-<host>-preflight`,
 * `${name}-<host>-install-<component>`, `${name}-<host>-pki-<component>`, `${name}-<host>-<component>`.
 */
export class KarmadaControlPlane extends pulumi.ComponentResource {
  /** Where the processes run: `containerized` or `hosts` (`args.mode`). */
  public readonly mode: ControlPlaneMode;
  /** Resolved settings everything was computed from. */
  public readonly settings: ControlPlaneSettings;
  /** Resolved hosts-mode settings (hosts mode only). */
  public readonly hostsSettings?: ControlPlaneHostsSettings;
  /** The remote commands by plan id, e.g. `cp1-karmada-scheduler` (hosts mode only). */
  public readonly hostCommands?: Readonly<Record<string, command.remote.Command>>;
  /** Admin kubeconfig (system:admin / system:masters) for the external endpoint; secret. */
  public readonly adminKubeconfig: pulumi.Output<string>;
  /**
   * Kubeconfig of Pulumi's providers for karmada-apiserver (the control plane's and the members'): a
   * provider slot's identity (`system:masters`), the slot not renewed in the current rotation window, so
   * a rotation never leaves the providers' configuration unknown to a preview. Secret; not a stack output.
   */
  public readonly providerKubeconfig: pulumi.Output<string>;
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
  /**
   * The controller workloads: karmada-controller-manager, karmada-scheduler, karmada-webhook and the
   * enabled optional components, plus kube-controller-manager when containerized (on hosts it is a
   * core service the Karmada provider itself depends on). Known now, and each waits for every object
   * of the control plane inside karmada-apiserver, so depending on them is the cheap way to depend on
   * all of it. Objects made through the Karmada provider (members, addons, users) depend on them so
   * that `destroy` deletes those objects while garbage collection, finalizers and webhooks still run.
   */
  public readonly controllers: pulumi.Resource[];
  /**
   * What objects made through the Karmada provider depend on: every object of the control plane
   * inside karmada-apiserver (CRDs load asynchronously) and the {@link controllers}.
   */
  public readonly karmadaObjectsReady: Promise<pulumi.Resource[]>;
  /** {@link controllers}, as a promise (kept for callers that await it). */
  public readonly controllersReady: Promise<pulumi.Resource[]>;
  /**
   * What Cluster objects must depend on: the APIService that serves `cluster.karmada.io` and the
   * {@link controllers} — so that removing a member deletes its Cluster while
   * karmada-controller-manager still runs to finalize it.
   */
  public readonly clusterApiReady: pulumi.Resource[];
  /** The component's name (prefix of its children), for messages of components that reference it. */
  public readonly name: string;
  /** Whether cluster-info and bootstrap RBAC for pull-mode bootstrap-token registration exist. */
  public readonly pullModeBootstrap: boolean;

  /**
   * Resolves defaults and checks `args` before anything is registered (a `ConfigError` naming the
   * field), then issues the certificates and deploys the control plane in the chosen mode.
   * @param name Component name; prefix of every child's Pulumi name.
   * @param args Version, mode, etcd, certificates and per-component settings.
   * @param opts Resource options; containerized mode needs their `kubernetes` provider (the host
   *   cluster).
   */
  constructor(name: string, args: KarmadaControlPlaneArgs, opts: pulumi.ComponentResourceOptions = {}) {
    // defaults → validation, before anything (this component included) is registered
    const plan = planControlPlane(name, args, opts);
    const { mode, settings, hosts, hostProvider } = plan;
    super("karmada:index:KarmadaControlPlane", name, {}, { ...opts, protect: plan.protect ?? opts.protect });
    this.name = name;
    this.pullModeBootstrap = plan.pullModeBootstrap;
    this.mode = mode;
    this.settings = settings;
    this.hostsSettings = hosts;
    this.apiEndpoint = externalApiServerUrl(settings);

    // certificates: one table for both modes, plus the host addresses on hosts
    const pki = this.issueCertificates(name, plan.pki, settings, hosts);
    const files: PkiFiles = (file) => ETCD_FILES[file]?.(plan.etcd) ?? pki.file(file);
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
    // the providers' own identity: the slot not being renewed now, so previews can diff Karmada's objects
    const slot = pki.providerSlot!;
    this.providerKubeconfig = kubeconfigOutput({
      server: this.apiEndpoint,
      caPem: files("ca.crt"),
      certPem: files(`provider-${slot}.crt`),
      keyPem: files(`provider-${slot}.key`),
      clusterName: "karmada-apiserver",
      userName: "pulumi-karmada-provider",
      contextName: "karmada-apiserver",
    });

    const deployed = hosts
      ? this.deployOnHosts(name, plan, hosts, files)
      : this.deployContainerized(name, plan, hostProvider!, files);
    this.karmadaProvider = deployed.provider;
    this.controllers = deployed.controllers;
    // both modes: members', addons' and users' objects wait for the controllers (webhooks fail
    // closed) and on destroy go first, while the controllers still finalize and collect them
    this.karmadaObjectsReady = deployed.karmadaApi.all.then((all) => [...all, ...deployed.controllers]);
    this.clusterApiReady = [...deployed.karmadaApi.apiServices, ...deployed.controllers];
    this.controllersReady = Promise.resolve(deployed.controllers);
    this.hostCommands = deployed.hostCommands;

    this.registerOutputs({
      adminKubeconfig: this.adminKubeconfig,
      apiEndpoint: this.apiEndpoint,
      caCertPem: this.caCertPem,
      certificateExpiry: this.certificateExpiry,
    });
  }

  /**
   * The provider for karmada-apiserver (external endpoint, provider identity), usable once `dependsOn`
   * is and configured only once karmada-apiserver serves at that endpoint (components/controlplane/serving.ts).
   */
  private karmadaProviderAfter(name: string, dependsOn: readonly pulumi.Resource[]): k8s.Provider {
    return new k8s.Provider(
      `${name}-karmada`,
      {
        kubeconfig: kubeconfigOnceServing(this.providerKubeconfig, dependsOn, this),
        // a computed kubeconfig must not replace the provider (and with it every Karmada object)
        clusterIdentifier: `karmada-${name}`,
        deleteUnreachable: true,
        // on kept or restored etcd data the control plane's objects are already there: adopt them, and
        // what this run writes wins over the previous run's field manager (cluster-info's CA, a new CA
        // bundle): the library owns every object it applies inside karmada-apiserver
        upsertExistingObjects: true,
        enablePatchForce: true,
      },
      { parent: this, dependsOn: [...dependsOn] },
    );
  }

  /** The objects inside karmada-apiserver, the same for both modes but for webhook URL and API backends. */
  private karmadaSide(
    name: string,
    plan: ControlPlanePlan,
    provider: k8s.Provider,
    options: KarmadaApiObjectOptions,
    graph: InstallGraph,
  ): KarmadaApiResources {
    const inputs = { caCertPem: this.caCertPem, apiServerUrl: this.apiEndpoint, crds: plan.crds, options };
    return deployKarmadaApiObjects(name, this, provider, this.settings, inputs, graph);
  }

  /**
   * Containerized: the phases of CONTAINERIZED_INSTALL_ORDER (lib/controlplane/installOrder.ts), each
   * registered after those it comes after — host namespace and Secrets, karmada-apiserver (after etcd),
   * aggregated apiserver, Karmada provider, Karmada-side objects, controllers.
   */
  private deployContainerized(
    name: string,
    plan: ControlPlanePlan,
    hostProvider: pulumi.ProviderResource,
    files: PkiFiles,
  ): Deployed {
    const settings = this.settings;
    const graph = new InstallGraph(CONTAINERIZED_INSTALL_ORDER);
    const host = { parent: this, provider: hostProvider };
    const namespace = this.hostNamespace(name, plan, host);
    graph.done("etcd", [plan.etcd]);
    const secrets = createComponentSecrets(name, settings, files, { ...host, dependsOn: namespace });
    graph.done("secrets", secrets);
    const workloads = hostWorkloadManifests(settings);
    // renewed certificates change the pod templates' checksum annotation: those workloads roll
    const workload = { ...host, resolve: resolveCertificatesChecksum(files) };
    const apply = (phase: InstallPhase, objects: readonly KubeObject[]) => {
      const resources = applyObjects(name, objects, { ...workload, dependsOn: graph.dependsOn(phase) });
      graph.done(phase, resources);
      return resources;
    };
    apply("karmada-apiserver", workloads.apiServer);
    apply("aggregated-apiserver", workloads.aggregatedApiServer);
    const provider = this.karmadaProviderAfter(name, graph.known("karmada-apiserver"));
    graph.done("karmada-provider", [provider]);
    const karmadaApi = this.karmadaSide(
      name,
      plan,
      provider,
      { pullModeBootstrap: plan.pullModeBootstrap },
      graph,
    );
    // controllers last: they need the CRDs, webhooks and APIs in place. Registered now (their
    // dependsOn resolves with the CRD bundle) so that members and addons can depend on a plain array.
    const controllers = apply("controllers", workloads.controllers);
    graph.assertComplete();
    return { provider, karmadaApi, controllers };
  }

  /**
   * Hosts: commands per host and component (lib/controlplane/hosts/plan.ts); karmada-apiserver healthy
   * on every host (after etcd) → Karmada provider → namespaces, CRDs → aggregated API servers →
   * APIServices, webhooks, RBAC → controllers and karmada-webhook.
   */
  private deployOnHosts(
    name: string,
    plan: ControlPlanePlan,
    hosts: ControlPlaneHostsSettings,
    files: PkiFiles,
  ): Deployed {
    let provider: k8s.Provider | undefined;
    const options = hostsKarmadaApiOptions(this.settings, hosts, plan.pullModeBootstrap);
    const onHosts = deployControlPlaneOnHosts(
      name,
      this,
      this.settings,
      hosts,
      files,
      [plan.etcd],
      (graph) => {
        provider = this.karmadaProviderAfter(name, graph.known("karmada-apiserver"));
        graph.done("karmada-provider", [provider]);
        return this.karmadaSide(name, plan, provider, options, graph);
      },
    );
    return {
      provider: provider!,
      karmadaApi: onHosts.karmadaApi,
      controllers: onHosts.services.controllers,
      hostCommands: onHosts.commands,
    };
  }

  /**
   * The host namespace: shared with an in-cluster etcd that created it, else created here (unless
   * `createNamespace: false`).
   */
  private hostNamespace(
    name: string,
    plan: ControlPlanePlan,
    host: { parent: pulumi.Resource; provider: pulumi.ProviderResource },
  ): pulumi.Resource[] {
    const shared = plan.etcd.inClusterSettings?.namespace === this.settings.namespace && plan.etcd.namespace;
    if (shared) return [plan.etcd.namespace!];
    if (!plan.createNamespace) return [];
    return applyObjects(name, [namespaceObject(this.settings.namespace)], host);
  }

  private issueCertificates(
    name: string,
    pki: ControlPlanePkiConfig,
    settings: ControlPlaneSettings,
    hosts: ControlPlaneHostsSettings | undefined,
  ): IssuedPki {
    const table = controlPlaneCertificates(settings, { leafValidityHours: pki.leafValidityHours })
      // the etcd client identity is issued by the EtcdCluster, which owns the etcd CA
      .filter((spec) => spec.signer !== "etcd-ca");
    const certificates = hosts ? hostsCertificates(table, hosts) : table;
    return issuePki({
      name,
      parent: this,
      certificates,
      cas: {
        ...(pki.karmadaCa ? { "karmada-ca": checkedCaSource("pki.karmadaCa", pki.karmadaCa, pki) } : {}),
        ...(pki.frontProxyCa
          ? { "front-proxy-ca": checkedCaSource("pki.frontProxyCa", pki.frontProxyCa, pki) }
          : {}),
      },
      caValidityHours: pki.caValidityHours,
      serviceAccountKey: true,
      rotation: pki.rotation,
    });
  }
}
