import { Chart } from "cdk8s";
import { k8s } from "cdk8s-plus-33";
import { CONTAINER_PATHS, componentFlags } from "../../controlplane/flags";
import { ControlPlaneComponent, componentHealth, componentPorts } from "../../controlplane/flags-ports";
import { objectNames } from "../../controlplane/names";
import { ControlPlaneSettings } from "../../controlplane/settings";
import type { KubeObject } from "../../kube/object";
import { KUBECONFIG_DIR, PKI_DIR } from "../../pki/layout";
import { synthChart } from "../karmada/chart";
import { certificatesChecksumAnnotation, objectAnnotations, objectLabels, selectorLabels } from "./metadata";
import {
  LIVENESS_TIMING,
  READINESS_TIMING,
  containerSecurityContext,
  httpProbe,
  podSecurityContext,
  resourceRequirements,
  secretVolume,
  spreadAcrossNodes,
} from "./pod";

/** The Service in front of a component. */
interface ServiceSpec {
  /** Port the Service exposes (it targets the component's secure port). */
  readonly port: number;
  /** Name of the Service port. @default "https" */
  readonly portName?: string;
  /** @default "ClusterIP" */
  readonly type?: "ClusterIP" | "NodePort" | "LoadBalancer";
  /** Fixed node port, NodePort Services only. @default - allocated by Kubernetes */
  readonly nodePort?: number;
  /** Load balancer implementation, LoadBalancer Services only. @default - the cluster default */
  readonly loadBalancerClass?: string;
  /** Extra annotations (e.g. cloud load balancer settings). @default {} */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** What sets one component's workload apart from the others. */
export interface WorkloadSpec {
  readonly component: ControlPlaneComponent;
  /** Executable inside the image. */
  readonly command: string;
  /** Service in front of the pods. @default - none */
  readonly service?: ServiceSpec;
}

/**
 * Adds a component's Deployment, its Service (if any) and, with more than one replica, a
 * PodDisruptionBudget to `chart`. Secrets are mounted by name only: the cert Secret at `PKI_DIR` and
 * (every component except karmada-apiserver) the kubeconfig Secret at `KUBECONFIG_DIR`.
 */
function addComponentWorkload(chart: Chart, settings: ControlPlaneSettings, spec: WorkloadSpec): void {
  const { component } = spec;
  const own = settings.components[component];
  const name = objectNames.workload(component);
  const selector = selectorLabels(component);
  const labels = objectLabels(component, own.labels);
  const metadata = (annotations?: Readonly<Record<string, string>>): k8s.ObjectMeta => ({
    name,
    namespace: settings.namespace,
    labels: objectLabels(component),
    annotations: objectAnnotations(settings.awaitWorkloads, annotations),
  });

  const usesKubeconfig = component !== "karmada-apiserver";
  const volumes: k8s.Volume[] = [
    secretVolume("pki", objectNames.certSecret(component)),
    ...(usesKubeconfig ? [secretVolume("kubeconfig", objectNames.kubeconfigSecret(component))] : []),
    // Scratch space: the root filesystem is read-only.
    { name: "tmp", emptyDir: {} },
  ];
  const volumeMounts: k8s.VolumeMount[] = [
    { name: "pki", mountPath: PKI_DIR, readOnly: true },
    ...(usesKubeconfig ? [{ name: "kubeconfig", mountPath: KUBECONFIG_DIR, readOnly: true }] : []),
    { name: "tmp", mountPath: "/tmp" },
  ];

  const health = componentHealth(component, settings);
  const container: k8s.Container = {
    name: component,
    image: own.image,
    imagePullPolicy: own.imagePullPolicy,
    command: [spec.command],
    args: componentFlags(component, settings, CONTAINER_PATHS),
    ports: containerPorts(component, settings),
    resources: resourceRequirements(own.resources),
    livenessProbe: httpProbe(health.livenessPath, health.port, health.scheme, LIVENESS_TIMING),
    readinessProbe: httpProbe(health.readinessPath, health.port, health.scheme, READINESS_TIMING),
    securityContext: containerSecurityContext(),
    volumeMounts,
  };

  new k8s.KubeDeployment(chart, "deployment", {
    metadata: { ...metadata(own.annotations), labels },
    spec: {
      replicas: own.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels, annotations: { ...own.annotations, ...certificatesChecksumAnnotation() } },
        spec: {
          // Components talk to karmada-apiserver with their kubeconfig, never to the host cluster.
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          priorityClassName: own.priorityClassName || undefined,
          securityContext: podSecurityContext(),
          affinity: own.replicas > 1 ? spreadAcrossNodes(selector, false) : undefined,
          containers: [container],
          volumes,
        },
      },
    },
  });

  if (spec.service) {
    const service = spec.service;
    new k8s.KubeService(chart, "service", {
      metadata: metadata(service.annotations),
      spec: {
        type: service.type ?? "ClusterIP",
        selector,
        loadBalancerClass: service.type === "LoadBalancer" ? service.loadBalancerClass : undefined,
        ports: [
          {
            name: service.portName ?? "https",
            protocol: "TCP",
            port: service.port,
            targetPort: k8s.IntOrString.fromNumber(componentPorts(component, settings).secure!),
            nodePort: service.type === "NodePort" ? service.nodePort : undefined,
          },
        ],
      },
    });
  }

  if (own.replicas > 1) {
    new k8s.KubePodDisruptionBudget(chart, "pdb", {
      metadata: metadata(),
      spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
    });
  }
}

/** Named container ports, for Services, NetworkPolicies and Prometheus discovery. */
function containerPorts(
  component: ControlPlaneComponent,
  settings: ControlPlaneSettings,
): k8s.ContainerPort[] {
  const ports = componentPorts(component, settings);
  const named: [string, number | undefined][] = [
    ["https", ports.secure],
    ["health", ports.health],
    ["metrics", ports.metrics],
  ];
  return named
    .filter((entry): entry is [string, number] => entry[1] !== undefined)
    .map(([name, containerPort]) => ({ name, containerPort, protocol: "TCP" }));
}

/** Synthesizes one component's objects as plain JSON. */
export function componentManifests(settings: ControlPlaneSettings, spec: WorkloadSpec): KubeObject[] {
  return synthChart(spec.component, (chart) => addComponentWorkload(chart, settings, spec));
}
