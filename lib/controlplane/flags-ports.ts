import { KarmadaComponent } from "../catalog/components";
import { ControlPlaneSettings } from "./settings";

/** Components that run on the control plane's host (cluster or machines), i.e. not estimator/agent. */
export type ControlPlaneComponent = Exclude<
  KarmadaComponent,
  "karmada-scheduler-estimator" | "karmada-agent"
>;

/** Where a process listens. */
export interface ComponentPorts {
  /** HTTPS port of its API (apiservers), webhook server or secure serving (kube-controller-manager). */
  readonly secure?: number;
  /** Plain-HTTP port of `/healthz`, for controllers that do not serve HTTPS. */
  readonly health?: number;
  /** Plain-HTTP Prometheus port, for processes that serve metrics apart from their secure port. */
  readonly metrics?: number;
}

/**
 * Ports of every process. They are all distinct so that the same flags work when every component runs
 * on one machine (hosts mode) as well as in separate pods, and all are above 1024 so containers bind
 * them without root. Services keep the upstream port numbers (443) and target these.
 */
const PORTS: Readonly<Record<Exclude<ControlPlaneComponent, "karmada-apiserver">, ComponentPorts>> = {
  "karmada-aggregated-apiserver": { secure: 7443 },
  "kube-controller-manager": { secure: 10257 },
  "karmada-controller-manager": { health: 10357, metrics: 8080 },
  "karmada-scheduler": { health: 10351, metrics: 8081 },
  "karmada-webhook": { secure: 8443, health: 8000, metrics: 8082 },
  "karmada-descheduler": { health: 10358, metrics: 8083 },
  "karmada-metrics-adapter": { secure: 9443, metrics: 8084 },
  "karmada-search": { secure: 10443 },
};

/** Ports one component listens on; karmada-apiserver's secure port comes from `apiServer.port`. */
export function componentPorts(
  component: ControlPlaneComponent,
  settings: ControlPlaneSettings,
): ComponentPorts {
  return component === "karmada-apiserver" ? { secure: settings.apiServer.port } : PORTS[component];
}

/** How to ask a process whether it is alive and ready. */
export interface HealthEndpoint {
  readonly port: number;
  readonly scheme: "HTTP" | "HTTPS";
  /** Path answering 200 while the process works (restart it otherwise). */
  readonly livenessPath: string;
  /** Path answering 200 while the process should receive traffic. */
  readonly readinessPath: string;
}

/** Health endpoint of one component (facts from the upstream binaries). */
export function componentHealth(
  component: ControlPlaneComponent,
  settings: ControlPlaneSettings,
): HealthEndpoint {
  const ports = componentPorts(component, settings);
  switch (component) {
    case "karmada-apiserver":
    case "karmada-aggregated-apiserver":
    case "karmada-metrics-adapter":
    case "karmada-search":
      // Generic API servers: /livez and /readyz are readable anonymously by default.
      return { port: ports.secure!, scheme: "HTTPS", livenessPath: "/livez", readinessPath: "/readyz" };
    case "kube-controller-manager":
      return { port: ports.secure!, scheme: "HTTPS", livenessPath: "/healthz", readinessPath: "/healthz" };
    case "karmada-webhook":
      // The webhook serves its readiness handler under /readyz/ on the webhook (HTTPS) port.
      return { port: ports.secure!, scheme: "HTTPS", livenessPath: "/readyz/", readinessPath: "/readyz/" };
    default:
      return { port: ports.health!, scheme: "HTTP", livenessPath: "/healthz", readinessPath: "/healthz" };
  }
}
