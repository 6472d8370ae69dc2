/** A control plane's configuration → its settings: every default applied here and nowhere else. */
import { CORE_COMPONENTS, KARMADA_COMPONENTS, KarmadaComponent } from "../catalog/components";
import { resolveImage } from "../catalog/images";
import { DEFAULT_KARMADA_VERSION, findRelease } from "../catalog/releases";
import { ComponentConfig, ControlPlaneConfig, componentKeyOf } from "./config";
import { CONTROL_PLANE_DEFAULTS } from "./defaults";
import { ComponentSettings, ControlPlaneSettings, EtcdConnection } from "./settings";

function defaultReplicas(component: KarmadaComponent): number {
  return component === "karmada-metrics-adapter" ? 2 : 1;
}

function resolveComponent(
  component: KarmadaComponent,
  config: ComponentConfig,
  base: Pick<ControlPlaneSettings, "release" | "featureGates">,
  images: ControlPlaneConfig["images"],
): ComponentSettings {
  const isCore = CORE_COMPONENTS.includes(component);
  return {
    component,
    enabled: isCore ? true : (config.enabled ?? false),
    replicas: config.replicas ?? defaultReplicas(component),
    image: config.image ?? resolveImage(component, base.release, images),
    imagePullPolicy: config.imagePullPolicy ?? CONTROL_PLANE_DEFAULTS.imagePullPolicy,
    resources:
      config.resources ??
      (component === "karmada-apiserver"
        ? CONTROL_PLANE_DEFAULTS.apiServerResources
        : CONTROL_PLANE_DEFAULTS.resources),
    labels: config.labels ?? {},
    annotations: config.annotations ?? {},
    featureGates: { ...base.featureGates, ...(config.featureGates ?? {}) },
    extraArgs: config.extraArgs ?? {},
    priorityClassName: config.priorityClassName ?? CONTROL_PLANE_DEFAULTS.priorityClassName,
  };
}

/** Splits `host[:port]` (IPv6 in brackets) into host and port. */
function parseEndpoint(endpoint: string, defaultPort: number): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(endpoint);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] ? Number(bracketed[2]) : defaultPort };
  const parts = endpoint.split(":");
  if (parts.length === 2) return { host: parts[0], port: Number(parts[1]) };
  return { host: endpoint, port: defaultPort };
}

/**
 * Resolves a control plane's configuration into {@link ControlPlaneSettings}: every default is applied
 * here and nowhere else. Call `validateControlPlaneConfig` first; this function assumes valid input.
 */
export function resolveControlPlaneSettings(
  name: string,
  config: ControlPlaneConfig,
  etcd: Omit<EtcdConnection, "keyPrefix">,
): ControlPlaneSettings {
  const release = findRelease(config.karmadaVersion ?? DEFAULT_KARMADA_VERSION);
  const featureGates = config.featureGates ?? {};
  const port = config.apiServer?.port ?? CONTROL_PLANE_DEFAULTS.apiServerPort;
  const components = Object.fromEntries(
    KARMADA_COMPONENTS.map((component) => {
      const key = componentKeyOf(component);
      const componentConfig = (key && config.components?.[key]) || {};
      return [
        component,
        resolveComponent(component, componentConfig, { release, featureGates }, config.images),
      ];
    }),
  ) as Record<KarmadaComponent, ComponentSettings>;
  const external = config.apiServer?.externalEndpoint;
  return {
    name,
    namespace: config.namespace ?? CONTROL_PLANE_DEFAULTS.namespace,
    clusterDomain: config.clusterDomain ?? CONTROL_PLANE_DEFAULTS.clusterDomain,
    release,
    featureGates,
    components,
    apiServer: {
      serviceType: config.apiServer?.serviceType ?? "ClusterIP",
      nodePort: config.apiServer?.nodePort,
      port,
      serviceSubnet: config.apiServer?.serviceSubnet ?? CONTROL_PLANE_DEFAULTS.serviceSubnet,
      externalEndpoint: external ? parseEndpoint(external, port) : undefined,
      extraSans: config.apiServer?.extraSans ?? [],
      loadBalancerClass: config.apiServer?.loadBalancerClass,
      serviceAnnotations: config.apiServer?.serviceAnnotations ?? {},
    },
    etcd: {
      endpoints: etcd.endpoints,
      keyPrefix: config.etcdKeyPrefix ?? CONTROL_PLANE_DEFAULTS.etcdKeyPrefix,
    },
    awaitWorkloads: config.awaitWorkloads ?? true,
  };
}
