import { KUBECONFIG_PATH, PKI_DIR, PkiFile } from "../pki/layout";
import { checkNotOwned } from "../validation/owned-flags";
import { componentKeyOf } from "./config";
import { CONTROL_PLANE_OWNED_FLAGS } from "./flags-owned";
import { FlagValues, featureGatesValue, renderFlags } from "./flags-render";
import { ControlPlaneComponent, componentPorts } from "./flags-ports";
import { objectNames } from "./names";
import { ControlPlaneSettings } from "./settings";

/**
 * Where a process finds its files. Containers use {@link CONTAINER_PATHS}; hosts mode passes its own
 * directories. File names inside `pkiDir` are the {@link PkiFile} names.
 */
export interface ComponentPaths {
  /** Directory holding the component's PKI files. */
  readonly pkiDir: string;
  /** Path of the component's kubeconfig for karmada-apiserver. */
  readonly kubeconfig: string;
}

/** Paths inside the containers: cert Secret at `PKI_DIR`, kubeconfig Secret at `KUBECONFIG_DIR`. */
export const CONTAINER_PATHS: ComponentPaths = { pkiDir: PKI_DIR, kubeconfig: KUBECONFIG_PATH };

/**
 * kube-controller-manager controllers Karmada needs: no nodes or pods exist in karmada-apiserver, so
 * only the API-object housekeeping, token and certificate controllers run. `tokencleaner` removes
 * expired bootstrap tokens and `clusterrole-aggregation` fills the aggregated karmada-view/edit roles.
 */
export const KUBE_CONTROLLERS = [
  "namespace",
  "garbagecollector",
  "serviceaccount-token",
  "ttl-after-finished",
  "bootstrapsigner",
  "tokencleaner",
  "csrapproving",
  "csrcleaner",
  "csrsigning",
  "clusterrole-aggregation",
] as const;

/** CN of the client certificate karmada-apiserver presents to aggregated API servers. */
const FRONT_PROXY_CLIENT_NAME = "front-proxy-client";

/** Binaries that accept `--feature-gates`; the others reject unknown flags and would not start. */
const ACCEPTS_FEATURE_GATES: ReadonlySet<ControlPlaneComponent> = new Set<ControlPlaneComponent>([
  "karmada-apiserver",
  "karmada-aggregated-apiserver",
  "kube-controller-manager",
  "karmada-controller-manager",
  "karmada-scheduler",
  "karmada-webhook",
]);

/** Kubernetes binaries: they refuse Karmada's gate names, so global (Karmada) gates are not passed on. */
const KUBE_BINARIES: ReadonlySet<ControlPlaneComponent> = new Set<ControlPlaneComponent>([
  "karmada-apiserver",
  "kube-controller-manager",
]);

/**
 * Command-line flags of one control-plane process, `--name=value`, sorted by name. Pure and free of
 * container specifics (binds 0.0.0.0, file locations from `paths`), so container manifests and host
 * units share it; `overlay` replaces generated flags (hosts mode's listen addresses, defined ones only).
 * Feature gates are merged into one sorted `--feature-gates`. `extraArgs` override the tunable generated
 * flags and add new ones; one naming a flag of {@link CONTROL_PLANE_OWNED_FLAGS} is a ConfigError here
 * too, should a caller have skipped validation.
 */
export function componentFlags(
  component: ControlPlaneComponent,
  settings: ControlPlaneSettings,
  paths: ComponentPaths,
  overlay: FlagValues = {},
): string[] {
  const own = settings.components[component];
  checkNotOwned(`components.${componentKeyOf(component)}.extraArgs`, own.extraArgs, {
    name: "the control plane",
    flags: CONTROL_PLANE_OWNED_FLAGS[component],
  });
  const generated: Record<string, string | undefined> = {
    ...GENERATORS[component](settings, paths),
    "feature-gates": ACCEPTS_FEATURE_GATES.has(component)
      ? featureGatesValue(componentGates(component, settings))
      : undefined,
  };
  for (const [name, value] of Object.entries(overlay)) if (value !== undefined) generated[name] = value;
  return renderFlags(generated, own.extraArgs);
}

/**
 * Gates of a component. Kubernetes binaries drop gates inherited unchanged from the global (Karmada)
 * set, because kube-apiserver and kube-controller-manager exit on gate names they do not know.
 */
function componentGates(
  component: ControlPlaneComponent,
  settings: ControlPlaneSettings,
): Record<string, boolean> {
  const gates = { ...settings.components[component].featureGates };
  if (KUBE_BINARIES.has(component)) {
    for (const [name, value] of Object.entries(settings.featureGates)) {
      if (gates[name] === value) delete gates[name];
    }
  }
  return gates;
}

type Generator = (settings: ControlPlaneSettings, paths: ComponentPaths) => FlagValues;

const pki = (paths: ComponentPaths, file: PkiFile): string => `${paths.pkiDir}/${file}`;
const port = (
  component: ControlPlaneComponent,
  settings: ControlPlaneSettings,
  kind: "secure" | "health" | "metrics",
) => String(componentPorts(component, settings)[kind]);

/** Flags of a process that stores data in Karmada's etcd. */
function etcdClient(settings: ControlPlaneSettings, paths: ComponentPaths): FlagValues {
  return {
    "etcd-servers": settings.etcd.endpoints.join(","),
    "etcd-prefix": settings.etcd.keyPrefix,
    "etcd-cafile": pki(paths, "etcd-ca.crt"),
    "etcd-certfile": pki(paths, "etcd-client.crt"),
    "etcd-keyfile": pki(paths, "etcd-client.key"),
  };
}

/** Flags of an aggregated API server behind karmada-apiserver (delegated authn/authz, front proxy). */
function aggregatedServer(
  component: ControlPlaneComponent,
  serving: { cert: PkiFile; key: PkiFile },
  settings: ControlPlaneSettings,
  paths: ComponentPaths,
): FlagValues {
  return {
    kubeconfig: paths.kubeconfig,
    "authentication-kubeconfig": paths.kubeconfig,
    "authorization-kubeconfig": paths.kubeconfig,
    "bind-address": "0.0.0.0",
    "secure-port": port(component, settings, "secure"),
    "client-ca-file": pki(paths, "ca.crt"),
    "requestheader-client-ca-file": pki(paths, "front-proxy-ca.crt"),
    "requestheader-allowed-names": FRONT_PROXY_CLIENT_NAME,
    "tls-cert-file": pki(paths, serving.cert),
    "tls-private-key-file": pki(paths, serving.key),
    "tls-min-version": "VersionTLS13",
  };
}

/** Flags of a controller-runtime style Karmada controller (kubeconfig, leader election, probes). */
function karmadaController(
  component: ControlPlaneComponent,
  settings: ControlPlaneSettings,
  paths: ComponentPaths,
) {
  return {
    kubeconfig: paths.kubeconfig,
    "leader-elect": "true",
    "leader-elect-resource-namespace": objectNames.karmadaSystemNamespace,
    "health-probe-bind-address": `0.0.0.0:${port(component, settings, "health")}`,
    "metrics-bind-address": `0.0.0.0:${port(component, settings, "metrics")}`,
  };
}

const GENERATORS: Readonly<Record<ControlPlaneComponent, Generator>> = {
  "karmada-apiserver": (settings, paths) => ({
    ...etcdClient(settings, paths),
    "allow-privileged": "true",
    "authorization-mode": "Node,RBAC",
    "enable-bootstrap-token-auth": "true",
    "bind-address": "0.0.0.0",
    "secure-port": port("karmada-apiserver", settings, "secure"),
    "client-ca-file": pki(paths, "ca.crt"),
    "tls-cert-file": pki(paths, "apiserver.crt"),
    "tls-private-key-file": pki(paths, "apiserver.key"),
    "tls-min-version": "VersionTLS13",
    "service-account-issuer": `https://kubernetes.default.svc.${settings.clusterDomain}`,
    "service-account-key-file": pki(paths, "sa.pub"),
    "service-account-signing-key-file": pki(paths, "sa.key"),
    "service-cluster-ip-range": settings.apiServer.serviceSubnet,
    // No pods or volumes live in Karmada: these admission plugins would only block objects.
    "disable-admission-plugins": "StorageObjectInUseProtection,ServiceAccount",
    "proxy-client-cert-file": pki(paths, "front-proxy-client.crt"),
    "proxy-client-key-file": pki(paths, "front-proxy-client.key"),
    "requestheader-client-ca-file": pki(paths, "front-proxy-ca.crt"),
    "requestheader-allowed-names": FRONT_PROXY_CLIENT_NAME,
    "requestheader-extra-headers-prefix": "X-Remote-Extra-",
    "requestheader-group-headers": "X-Remote-Group",
    "requestheader-username-headers": "X-Remote-User",
    "max-requests-inflight": "1500",
    "max-mutating-requests-inflight": "500",
  }),
  "karmada-aggregated-apiserver": (settings, paths) => ({
    ...aggregatedServer(
      "karmada-aggregated-apiserver",
      { cert: "aggregated-apiserver.crt", key: "aggregated-apiserver.key" },
      settings,
      paths,
    ),
    ...etcdClient(settings, paths),
  }),
  "kube-controller-manager": (settings, paths) => ({
    kubeconfig: paths.kubeconfig,
    "authentication-kubeconfig": paths.kubeconfig,
    "authorization-kubeconfig": paths.kubeconfig,
    "bind-address": "0.0.0.0",
    "secure-port": port("kube-controller-manager", settings, "secure"),
    "client-ca-file": pki(paths, "ca.crt"),
    controllers: KUBE_CONTROLLERS.join(","),
    "cluster-signing-cert-file": pki(paths, "ca.crt"),
    "cluster-signing-key-file": pki(paths, "ca.key"),
    "root-ca-file": pki(paths, "ca.crt"),
    "service-account-private-key-file": pki(paths, "sa.key"),
    "use-service-account-credentials": "true",
    "leader-elect": "true",
  }),
  "karmada-controller-manager": (settings, paths) =>
    karmadaController("karmada-controller-manager", settings, paths),
  "karmada-scheduler": (settings, paths) => karmadaController("karmada-scheduler", settings, paths),
  "karmada-descheduler": (settings, paths) => karmadaController("karmada-descheduler", settings, paths),
  "karmada-webhook": (settings, paths) => ({
    kubeconfig: paths.kubeconfig,
    "bind-address": "0.0.0.0",
    "secure-port": port("karmada-webhook", settings, "secure"),
    // The webhook reads `<cert-dir>/<file name>` rather than full paths.
    "cert-dir": paths.pkiDir,
    "tls-cert-file-name": "webhook.crt",
    "tls-private-key-file-name": "webhook.key",
    "tls-min-version": "1.3",
    "health-probe-bind-address": `0.0.0.0:${port("karmada-webhook", settings, "health")}`,
    "metrics-bind-address": `0.0.0.0:${port("karmada-webhook", settings, "metrics")}`,
  }),
  "karmada-metrics-adapter": (settings, paths) => ({
    ...aggregatedServer(
      "karmada-metrics-adapter",
      { cert: "metrics-adapter.crt", key: "metrics-adapter.key" },
      settings,
      paths,
    ),
    "metrics-bind-address": `0.0.0.0:${port("karmada-metrics-adapter", settings, "metrics")}`,
  }),
  "karmada-search": (settings, paths) => ({
    ...aggregatedServer("karmada-search", { cert: "search.crt", key: "search.key" }, settings, paths),
    ...etcdClient(settings, paths),
  }),
};
