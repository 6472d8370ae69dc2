import { OwnedFlags } from "../validation/owned-flags";
import { ControlPlaneComponent } from "./flags-ports";

// Settings named in the table (what the user changes instead of the flag).
const ETCD = "etcd (the EtcdCluster passed as `etcd`)";
const ETCD_TLS = "etcd (the CA and client certificate of the EtcdCluster passed as `etcd`)";
const KUBECONFIG = "the component's kubeconfig, which the control plane issues";
const CLIENT_CA = "the control plane's CA, which it issues";
const FRONT_PROXY = "the control plane's front-proxy CA and client certificate, which it issues";
const SERVING = "the component's serving certificate, which the control plane issues";
const SA_KEYS = "the service-account key pair the control plane issues";
const BIND = "the pod (all interfaces) or, in hosts mode, hosts.bindAllInterfaces and the host address";
const PORT = "the component's fixed port (lib/controlplane/flags-ports.ts), which its Service and probes use";
const LEADER = "replicas (leader election keeps one replica active, with its lease in karmada-system)";
const gates = (key: string) => `featureGates and components.${key}.featureGates`;

const ETCD_CLIENT: OwnedFlags = {
  "etcd-servers": ETCD,
  "etcd-prefix": "etcdKeyPrefix",
  "etcd-cafile": ETCD_TLS,
  "etcd-certfile": ETCD_TLS,
  "etcd-keyfile": ETCD_TLS,
};

/** Servers that authenticate and authorize their clients through karmada-apiserver, on a fixed port. */
const DELEGATED_SERVING: OwnedFlags = {
  kubeconfig: KUBECONFIG,
  "authentication-kubeconfig": KUBECONFIG,
  "authorization-kubeconfig": KUBECONFIG,
  "bind-address": BIND,
  "secure-port": PORT,
  "client-ca-file": CLIENT_CA,
};

/** Aggregated API servers: delegated authentication/authorization through Karmada, front proxy. */
const AGGREGATED: OwnedFlags = {
  ...DELEGATED_SERVING,
  "requestheader-client-ca-file": FRONT_PROXY,
  "requestheader-allowed-names": FRONT_PROXY,
  "tls-cert-file": SERVING,
  "tls-private-key-file": SERVING,
};

const CONTROLLER: OwnedFlags = {
  kubeconfig: KUBECONFIG,
  "leader-elect": LEADER,
  "leader-elect-resource-namespace": LEADER,
  "health-probe-bind-address": PORT,
  "metrics-bind-address": PORT,
};

/**
 * The flags each control-plane component owns, in both modes (hosts mode adds a few, see
 * `HOSTS_OWNED_FLAGS`). `componentFlags` emits them and refuses them in `extraArgs`, and
 * `validateControlPlaneConfig` refuses them up front. What is generated but absent here
 * (`v`, `max-requests-inflight`, `tls-min-version`, `controllers`…) is a default the user may tune.
 */
export const CONTROL_PLANE_OWNED_FLAGS: Readonly<Record<ControlPlaneComponent, OwnedFlags>> = {
  "karmada-apiserver": {
    ...ETCD_CLIENT,
    "authorization-mode": "the control plane's RBAC objects (Node,RBAC is what they are written for)",
    "enable-bootstrap-token-auth": "MemberRegistration (pull mode registers with bootstrap tokens)",
    "bind-address": BIND,
    "secure-port": "apiServer.port",
    "client-ca-file": CLIENT_CA,
    "tls-cert-file": "apiServer.externalEndpoint and apiServer.extraSans (the serving certificate)",
    "tls-private-key-file": "apiServer.externalEndpoint and apiServer.extraSans (the serving certificate)",
    "service-account-issuer": "clusterDomain",
    "service-account-key-file": SA_KEYS,
    "service-account-signing-key-file": SA_KEYS,
    "service-cluster-ip-range": "apiServer.serviceSubnet",
    "proxy-client-cert-file": FRONT_PROXY,
    "proxy-client-key-file": FRONT_PROXY,
    "requestheader-client-ca-file": FRONT_PROXY,
    "requestheader-allowed-names": FRONT_PROXY,
    "requestheader-extra-headers-prefix": FRONT_PROXY,
    "requestheader-group-headers": FRONT_PROXY,
    "requestheader-username-headers": FRONT_PROXY,
    "feature-gates": gates("apiServer"),
  },
  "karmada-aggregated-apiserver": {
    ...AGGREGATED,
    ...ETCD_CLIENT,
    "feature-gates": gates("aggregatedApiServer"),
  },
  "kube-controller-manager": {
    ...DELEGATED_SERVING,
    "cluster-signing-cert-file": CLIENT_CA,
    "cluster-signing-key-file": CLIENT_CA,
    "root-ca-file": CLIENT_CA,
    "service-account-private-key-file": SA_KEYS,
    "leader-elect": LEADER,
    "feature-gates": gates("kubeControllerManager"),
  },
  "karmada-controller-manager": { ...CONTROLLER, "feature-gates": gates("controllerManager") },
  "karmada-scheduler": { ...CONTROLLER, "feature-gates": gates("scheduler") },
  "karmada-descheduler": CONTROLLER,
  "karmada-webhook": {
    kubeconfig: KUBECONFIG,
    "bind-address": BIND,
    "secure-port": PORT,
    "cert-dir": SERVING,
    "tls-cert-file-name": SERVING,
    "tls-private-key-file-name": SERVING,
    "health-probe-bind-address": PORT,
    "metrics-bind-address": PORT,
    "feature-gates": gates("webhook"),
  },
  "karmada-metrics-adapter": { ...AGGREGATED, "metrics-bind-address": PORT },
  "karmada-search": { ...AGGREGATED, ...ETCD_CLIENT },
};
