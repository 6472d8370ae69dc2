import { ArtifactSource } from "../../hosts/artifact";
import { ServiceManager } from "../../hosts/service";
import { HostSpec } from "../../hosts/spec";
import { ComponentKey } from "../config";

/** Version and binary source of one component, when it differs from the rest (e.g. a rolling upgrade). */
export interface ComponentBinaryConfig {
  /**
   * Version the installed binary must report (`karmada-x version` / `kube-apiserver --version`).
   * @default - `karmadaVersion` for Karmada binaries, `kubernetesVersion` for kube-apiserver and
   * kube-controller-manager
   */
  readonly version?: string;
  /** Where this component's binary comes from. @default - `hosts.binaries` */
  readonly binaries?: ArtifactSource;
}

/**
 * Where the aggregated API servers are reached from karmada-apiserver when host addresses cannot be
 * Endpoints (DNS names, loopback): a DNS name or IP that forwards port 443 to the component's secure
 * port on the hosts (an ExternalName Service is dialled on the APIService port, 443).
 */
export interface ApiServiceHosts {
  /** For the Cluster API (karmada-aggregated-apiserver, port 7443 on the hosts). @default - Endpoints */
  readonly aggregatedApiserver?: string;
  /** For karmada-metrics-adapter (port 9443 on the hosts). @default - Endpoints */
  readonly metricsAdapter?: string;
  /** For karmada-search (port 10443 on the hosts). @default - Endpoints */
  readonly search?: string;
}

/**
 * Binary ("hosts") mode of KarmadaControlPlane: every enabled component runs as a service on each of
 * `machines`, reached by clients through `apiServer.externalEndpoint` (a VIP, load balancer or DNS
 * name in front of the hosts).
 */
export interface ControlPlaneHostsConfig {
  /** Machines that run the control plane, reached over SSH; every enabled component runs on each. */
  readonly machines: HostSpec[];
  /**
   * What keeps the components running: systemd units, or the bundled supervisor (hosts without systemd).
   * @default "systemd"
   */
  readonly serviceManager?: ServiceManager;
  /**
   * Where binaries come from: a mirror URL of a `.tar.gz` (with `sha256`), or a directory / `.tar.gz`
   * already on each host. Binaries sit at most one directory deep and are named like the components
   * (`kube-apiserver`, `kube-controller-manager`, `karmada-scheduler`, …). Karmada publishes no
   * server binaries, so there is no upstream default.
   * @default - none: required unless every component has its own `binaries`
   */
  readonly binaries?: ArtifactSource;
  /** Version of kube-apiserver and kube-controller-manager. @default - the Karmada release's pairing */
  readonly kubernetesVersion?: string;
  /** Per-component version and binary source, to upgrade one component at a time. @default {} */
  readonly components?: Partial<Record<ComponentKey, ComponentBinaryConfig>>;
  /**
   * `host[:port]` karmada-apiserver calls karmada-webhook at (every webhook URL uses it); the name must
   * forward to port 8443 of the hosts.
   * @default - the external endpoint's host, port 8443 (the VIP forwards the webhook port too)
   */
  readonly webhookEndpoint?: string;
  /**
   * Names for the aggregated APIs instead of Endpoints with the host addresses. Required when host
   * addresses are DNS names or loopback addresses, which Endpoints do not accept.
   * @default - Endpoints listing every host's address (karmada-apiserver routes to them directly)
   */
  readonly apiServiceHosts?: ApiServiceHosts;
  /**
   * Listen on all interfaces instead of the host's own address (e.g. when a keepalived VIP lives on
   * the hosts). Hosts given by DNS name always listen on all interfaces.
   * @default false
   */
  readonly bindAllInterfaces?: boolean;
  /** Seconds a component may take to become healthy on a host before `up` fails. @default 120 */
  readonly healthTimeoutSeconds?: number;
  /**
   * Seconds karmada-apiserver keeps serving after it is told to stop while its /readyz already fails
   * (`--shutdown-delay-duration`; then new requests get 429 with Retry-After until in-flight ones end),
   * so the load balancer behind `apiServer.externalEndpoint` takes the host out before it stops
   * listening. Set it above the longer of the load balancer's down detection (interval × fall + check
   * timeout) and its up detection (interval × rise): in a rolling restart the previous host must be
   * back in rotation before this one leaves. Its stop grace grows by as much.
   * @default 10 with several machines (above HAProxy's default checks: 2 s × fall 3, rise 2); 0 with
   * one, which has no other host to hand its clients to
   */
  readonly apiServerDrainSeconds?: number;
  /** Directory binaries are installed into. @default "/usr/local/bin" */
  readonly binDir?: string;
  /** Directory holding one sub-directory of certificates and kubeconfig per component. @default "/etc/karmada" */
  readonly configDir?: string;
}
