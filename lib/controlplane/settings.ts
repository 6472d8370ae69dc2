import { KarmadaComponent } from "../catalog/components";
import { KarmadaRelease } from "../catalog/releases";

/**
 * Resolved, plain (no Pulumi Outputs) settings of a control plane: what every manifest, host script
 * and certificate is computed from. Produced by `resolveControlPlaneSettings` from the component's
 * args in one place; everything downstream is a pure function of this object.
 */
export interface ControlPlaneSettings {
  /** Pulumi name of the control plane; prefixes Pulumi child names, never Kubernetes object names. */
  readonly name: string;
  /** Namespace on the host cluster that holds the control plane workloads. */
  readonly namespace: string;
  /** DNS domain of the host cluster. */
  readonly clusterDomain: string;
  /** The catalog entry of the Karmada version installed (images, CRD bundle, checksums). */
  readonly release: KarmadaRelease;
  /** Global feature gates passed to every Karmada component (merged under per-component gates). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Every component (enabled or not), by its upstream name such as `karmada-scheduler`. */
  readonly components: Readonly<Record<KarmadaComponent, ComponentSettings>>;
  /** How karmada-apiserver is exposed and which names its certificate covers. */
  readonly apiServer: ApiServerSettings;
  /** The etcd karmada-apiserver and karmada-aggregated-apiserver store objects in. */
  readonly etcd: EtcdConnection;
  /**
   * Whether Pulumi waits for workloads to become ready. Always true in production; the test bed (API
   * servers without kubelets, where pods never run) turns it off.
   */
  readonly awaitWorkloads: boolean;
}

/** CPU and memory of a container, as in a Kubernetes `resources` block. */
export interface ResourceRequirements {
  /** Reserved for scheduling, by resource name: quantities such as `{ cpu: "100m", memory: "128Mi" }`. @default - none */
  readonly requests?: Readonly<Record<string, string>>;
  /** Hard caps, by resource name (memory over the limit is OOM-killed, CPU throttled). @default - none */
  readonly limits?: Readonly<Record<string, string>>;
}

/** Settings of one component, after defaults. */
export interface ComponentSettings {
  /** Upstream name of the component, e.g. `karmada-scheduler`. */
  readonly component: KarmadaComponent;
  /** Whether it is deployed (core components always; optional ones when asked for). */
  readonly enabled: boolean;
  /** Pod replicas (containerized mode; hosts mode runs one process per machine instead). */
  readonly replicas: number;
  /** Full image reference `repository:tag`, registry rewriting and overrides applied. */
  readonly image: string;
  /** Pull policy of its containers. */
  readonly imagePullPolicy: "Always" | "IfNotPresent" | "Never";
  /** CPU and memory requests and limits of its container. */
  readonly resources: ResourceRequirements;
  /** Extra labels on the workload and its pods. */
  readonly labels: Readonly<Record<string, string>>;
  /** Extra annotations on the workload and its pods. */
  readonly annotations: Readonly<Record<string, string>>;
  /** Component feature gates (global gates merged in, component wins). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Extra flags, name without leading dashes → value; override generated flags of the same name. */
  readonly extraArgs: Readonly<Record<string, string>>;
  /** PriorityClass of its pods; `""` for none. */
  readonly priorityClassName: string;
}

/** Type of the host-cluster Service in front of karmada-apiserver (containerized mode). */
export type ApiServerServiceType = "ClusterIP" | "NodePort" | "LoadBalancer";

/** How karmada-apiserver is exposed, after defaults. */
export interface ApiServerSettings {
  /** How karmada-apiserver is exposed on the host cluster. */
  readonly serviceType: ApiServerServiceType;
  /** NodePort when `serviceType` is NodePort. */
  readonly nodePort?: number;
  /** Port the apiserver listens on and its Service exposes. */
  readonly port: number;
  /** Service CIDR of the Karmada API (the `kubernetes` Service ClusterIP is taken from it). */
  readonly serviceSubnet: string;
  /**
   * Address clients use (VIP, load balancer or domain) — goes into the SANs and into every kubeconfig
   * handed out. Absent: the in-cluster Service DNS name.
   */
  readonly externalEndpoint?: {
    /** Host name or IP address clients dial. */
    readonly host: string;
    /** TCP port clients dial (the given `:port`, else the apiserver's `port`). */
    readonly port: number;
  };
  /** Additional DNS names and IPs for the serving certificate. */
  readonly extraSans: readonly string[];
  /** `spec.loadBalancerClass` of a LoadBalancer Service; absent: the cluster's default implementation. */
  readonly loadBalancerClass?: string;
  /** Annotations of the apiserver Service (e.g. a cloud load balancer's settings). */
  readonly serviceAnnotations: Readonly<Record<string, string>>;
}

/** How the Karmada apiserver reaches etcd. */
export interface EtcdConnection {
  /** Client URLs, e.g. `https://etcd-client.karmada-system.svc.cluster.local:2379`. */
  readonly endpoints: readonly string[];
  /** Key prefix Karmada stores its objects under. */
  readonly keyPrefix: string;
}
