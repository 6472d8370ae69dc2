import { ImageSettings } from "../catalog/images";
import { ApiServerServiceType, ResourceRequirements } from "./settings";

/**
 * Per-component settings a user may give. Every field is optional; defaults are resolved in
 * `resolveControlPlaneSettings`.
 */
export interface ComponentConfig {
  /** Run this component. Only meaningful for optional components (metricsAdapter, descheduler, search).
   * @default true for core components, false for optional ones */
  readonly enabled?: boolean;
  /**
   * Pod replicas of the component's Deployment, an integer of at least 1 (containerized mode only: hosts
   * mode runs one process per machine). With more than one, pods prefer different nodes and a
   * PodDisruptionBudget keeps all but one running during drains; leader-elected components (controller
   * managers, schedulers) keep the extra replicas as standbys.
   * @default 1 (2 for karmada-metrics-adapter, like upstream)
   */
  readonly replicas?: number;
  /** Full image reference override (`repo:tag`); wins over `images`. @default - from the version catalog */
  readonly image?: string;
  /**
   * When the kubelet pulls the component's image: `Always` on every pod start, `IfNotPresent` only when
   * the node lacks it, `Never` only from the node's cache (nodes with preloaded images). Containerized
   * mode only.
   * @default "IfNotPresent"
   */
  readonly imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
  /** @default - requests only: cpu 100m, memory 128Mi (apiserver: 250m / 512Mi) */
  readonly resources?: ResourceRequirements;
  /**
   * Extra labels on the component's Deployment and its pods (not its Service); the package's own
   * `app.kubernetes.io/*` labels win on a clash. Containerized mode only.
   * @default {}
   */
  readonly labels?: Record<string, string>;
  /**
   * Extra annotations on the component's Deployment and its pods, e.g. for metrics scraping or a
   * config reloader. Containerized mode only.
   * @default {}
   */
  readonly annotations?: Record<string, string>;
  /** Component feature gates; merged over the global `featureGates`. @default {} */
  readonly featureGates?: Record<string, boolean>;
  /** Extra command-line flags (name without dashes → value); override generated ones. @default {} */
  readonly extraArgs?: Record<string, string>;
  /**
   * PriorityClass of the component's pods, so the host cluster evicts other pods before the control
   * plane under resource pressure; must name a PriorityClass that exists there. Containerized mode only.
   * @default "system-node-critical"
   */
  readonly priorityClassName?: string;
}

/** Keys of `components`, camelCase like the official operator's Karmada CR. */
export const COMPONENT_KEYS = {
  apiServer: "karmada-apiserver",
  aggregatedApiServer: "karmada-aggregated-apiserver",
  kubeControllerManager: "kube-controller-manager",
  controllerManager: "karmada-controller-manager",
  scheduler: "karmada-scheduler",
  webhook: "karmada-webhook",
  metricsAdapter: "karmada-metrics-adapter",
  descheduler: "karmada-descheduler",
  search: "karmada-search",
} as const;

export type ComponentKey = keyof typeof COMPONENT_KEYS;

/** Key of `components` for a component (`karmada-apiserver` → `apiServer`); undefined without one. */
export function componentKeyOf(component: string): ComponentKey | undefined {
  return (Object.keys(COMPONENT_KEYS) as ComponentKey[]).find((k) => COMPONENT_KEYS[k] === component);
}

/** How karmada-apiserver is reached. */
export interface ApiServerExposureConfig {
  /** @default "ClusterIP" */
  readonly serviceType?: ApiServerServiceType;
  /** Fixed NodePort for `serviceType: NodePort`. @default - assigned by Kubernetes */
  readonly nodePort?: number;
  /**
   * TCP port (1–65535) karmada-apiserver listens on (`--secure-port`) and its Service exposes; in hosts
   * mode, the port on each machine. Also the port of `externalEndpoint` when that names none.
   * @default 5443
   */
  readonly port?: number;
  /** Service CIDR inside Karmada. @default "10.96.0.0/12" */
  readonly serviceSubnet?: string;
  /**
   * External VIP, load balancer address or domain name clients use, with optional `:port`. Goes into
   * the serving certificate's SANs and becomes the server URL of every kubeconfig handed out.
   * @default - the in-cluster Service DNS name
   */
  readonly externalEndpoint?: string;
  /** Extra DNS names / IPs for the serving certificate. @default [] */
  readonly extraSans?: string[];
  /**
   * `spec.loadBalancerClass` of the apiserver Service: which load-balancer implementation provisions it,
   * as `[prefix/]name` (e.g. `service.k8s.aws/nlb`). Only with `serviceType: "LoadBalancer"`; unset, the
   * cluster's default implementation takes the Service.
   * @default - none
   */
  readonly loadBalancerClass?: string;
  /**
   * Annotations on the karmada-apiserver Service, typically a cloud load balancer's settings (internal
   * scheme, health checks). Containerized mode only: hosts mode has no Service.
   * @default {}
   */
  readonly serviceAnnotations?: Record<string, string>;
}

/** Plain (non-Output) configuration of a control plane, as written in stack config. */
export interface ControlPlaneConfig {
  /** Karmada release from the version catalog. @default - newest release in the catalog */
  readonly karmadaVersion?: string;
  /** Host-cluster namespace for the control plane. @default "karmada-system" */
  readonly namespace?: string;
  /** DNS domain of the host cluster. @default "cluster.local" */
  readonly clusterDomain?: string;
  /** Registry rewriting and per-image overrides (offline installs). @default - upstream registries */
  readonly images?: ImageSettings;
  /** Feature gates for every Karmada component. @default {} */
  readonly featureGates?: Record<string, boolean>;
  /** Per-component settings. @default {} */
  readonly components?: Partial<Record<ComponentKey, ComponentConfig>>;
  /** API server exposure. @default - ClusterIP on port 5443 */
  readonly apiServer?: ApiServerExposureConfig;
  /** etcd key prefix for Karmada's objects. @default "/registry" */
  readonly etcdKeyPrefix?: string;
  /**
   * Wait for workloads to become ready. Turn off only where pods cannot run (the API-server-only test
   * bed); production installs must keep it on so failures surface in `pulumi up`.
   * @default true
   */
  readonly awaitWorkloads?: boolean;
}
