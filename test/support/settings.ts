import {
  CORE_COMPONENTS,
  DEFAULT_KARMADA_VERSION,
  KARMADA_COMPONENTS,
  KarmadaComponent,
  findRelease,
  resolveImage,
} from "../../lib/catalog";
import {
  ApiServerSettings,
  ComponentSettings,
  ControlPlaneSettings,
  EtcdConnection,
} from "../../lib/controlplane/settings";

/** What a test may change; everything else gets realistic defaults. */
export interface SettingsOverrides {
  readonly version?: string;
  readonly namespace?: string;
  readonly clusterDomain?: string;
  readonly featureGates?: Record<string, boolean>;
  readonly apiServer?: Partial<ApiServerSettings>;
  readonly etcd?: Partial<EtcdConnection>;
  readonly awaitWorkloads?: boolean;
  /** Per-component changes; `featureGates` here are the component's own (global ones merged in). */
  readonly components?: Partial<Record<KarmadaComponent, Partial<ComponentSettings>>>;
}

/**
 * Builds a resolved {@link ControlPlaneSettings} the way a real install would look: release from the
 * catalog, images resolved through the catalog, core components on, optional ones off. Stands in for
 * `resolveControlPlaneSettings` in tests.
 */
export function testSettings(overrides: SettingsOverrides = {}): ControlPlaneSettings {
  const release = findRelease(overrides.version ?? DEFAULT_KARMADA_VERSION);
  const namespace = overrides.namespace ?? "karmada-system";
  const clusterDomain = overrides.clusterDomain ?? "cluster.local";
  const globalGates = overrides.featureGates ?? {};
  const component = (name: KarmadaComponent): ComponentSettings => {
    const patch = overrides.components?.[name] ?? {};
    return {
      component: name,
      enabled: CORE_COMPONENTS.includes(name),
      replicas: 1,
      image: resolveImage(name, release),
      imagePullPolicy: "IfNotPresent",
      resources: { requests: { cpu: "100m", memory: "128Mi" } },
      labels: {},
      annotations: {},
      extraArgs: {},
      priorityClassName: "system-node-critical",
      ...patch,
      featureGates: { ...globalGates, ...patch.featureGates },
    };
  };
  return {
    name: "karmada",
    namespace,
    clusterDomain,
    release,
    featureGates: globalGates,
    components: Object.fromEntries(KARMADA_COMPONENTS.map((c) => [c, component(c)])) as Record<
      KarmadaComponent,
      ComponentSettings
    >,
    apiServer: {
      serviceType: "ClusterIP",
      port: 5443,
      serviceSubnet: "10.96.0.0/12",
      extraSans: [],
      serviceAnnotations: {},
      ...overrides.apiServer,
    },
    etcd: {
      endpoints: [`https://etcd-client.${namespace}.svc.${clusterDomain}:2379`],
      keyPrefix: "/registry",
      ...overrides.etcd,
    },
    awaitWorkloads: overrides.awaitWorkloads ?? true,
  };
}
