import { KarmadaComponent } from "../catalog/components";
import { ProviderSlot } from "./rotation";

/** Directory every component mounts its certificate Secret at (containers) or reads from (hosts). */
export const PKI_DIR = "/etc/karmada/pki";

/**
 * Files of the control-plane PKI. Each is the key in a component's cert Secret and the file name under
 * {@link PKI_DIR}. `*.key` files are private keys and only ever travel as Pulumi secrets.
 */
export type PkiFile =
  | "ca.crt"
  | "ca.key"
  | "front-proxy-ca.crt"
  | "front-proxy-client.crt"
  | "front-proxy-client.key"
  | "etcd-ca.crt"
  | "etcd-client.crt"
  | "etcd-client.key"
  | "apiserver.crt"
  | "apiserver.key"
  | "aggregated-apiserver.crt"
  | "aggregated-apiserver.key"
  | "webhook.crt"
  | "webhook.key"
  | "search.crt"
  | "search.key"
  | "metrics-adapter.crt"
  | "metrics-adapter.key"
  | "sa.pub"
  | "sa.key"
  | "front-proxy-ca.key"
  | "etcd-ca.key"
  | "admin.crt"
  | "admin.key"
  | "etcd-server.crt"
  | "etcd-server.key"
  | "etcd-peer.crt"
  | "etcd-peer.key"
  | "etcd-healthcheck-client.crt"
  | "etcd-healthcheck-client.key"
  | ClientPkiFile
  | ProviderPkiFile;

/** Certificate and key of a provider slot (rotation.ts): held by Pulumi only, listed for no component. */
type ProviderPkiFile = `provider-${ProviderSlot}.crt` | `provider-${ProviderSlot}.key`;

/**
 * Client certificate and key of a component's own identity towards karmada-apiserver
 * (`CN=system:karmada:<component>`). They travel inside the component's kubeconfig, not as PKI files.
 */
type ClientPkiFile = `${KarmadaComponent}-client.crt` | `${KarmadaComponent}-client.key`;

/**
 * Components that talk to karmada-apiserver with a kubeconfig of their own (and so get a client
 * certificate). Not karmada-apiserver itself, not karmada-scheduler-estimator (it talks to its member
 * cluster), not karmada-agent (pull-mode identities are issued per member at registration).
 */
export const KUBECONFIG_COMPONENTS: readonly KarmadaComponent[] = [
  "karmada-aggregated-apiserver",
  "kube-controller-manager",
  "karmada-controller-manager",
  "karmada-scheduler",
  "karmada-webhook",
  "karmada-metrics-adapter",
  "karmada-descheduler",
  "karmada-search",
];

/**
 * Which PKI files each component needs — and nothing more, so a compromised scheduler pod cannot read
 * the CA key. kube-controller-manager gets `ca.key` because it signs the CSRs of pull-mode agents
 * (csrsigning controller), exactly like upstream installs.
 */
export const COMPONENT_PKI_FILES: Readonly<Record<KarmadaComponent, readonly PkiFile[]>> = {
  "karmada-apiserver": [
    "ca.crt",
    "apiserver.crt",
    "apiserver.key",
    "front-proxy-ca.crt",
    "front-proxy-client.crt",
    "front-proxy-client.key",
    "etcd-ca.crt",
    "etcd-client.crt",
    "etcd-client.key",
    "sa.pub",
    "sa.key",
  ],
  "karmada-aggregated-apiserver": [
    "ca.crt",
    "aggregated-apiserver.crt",
    "aggregated-apiserver.key",
    "front-proxy-ca.crt",
    "etcd-ca.crt",
    "etcd-client.crt",
    "etcd-client.key",
  ],
  "kube-controller-manager": ["ca.crt", "ca.key", "sa.key"],
  "karmada-controller-manager": ["ca.crt"],
  "karmada-scheduler": ["ca.crt"],
  "karmada-webhook": ["ca.crt", "webhook.crt", "webhook.key"],
  "karmada-metrics-adapter": ["ca.crt", "front-proxy-ca.crt", "metrics-adapter.crt", "metrics-adapter.key"],
  "karmada-descheduler": ["ca.crt"],
  "karmada-search": [
    "ca.crt",
    "front-proxy-ca.crt",
    "search.crt",
    "search.key",
    "etcd-ca.crt",
    "etcd-client.crt",
    "etcd-client.key",
  ],
  "karmada-scheduler-estimator": ["ca.crt"],
  "karmada-agent": ["ca.crt"],
};

/** Path of a PKI file inside a container or on a host. */
/**
 * The certificates a component's pods read: the public files of its certificate Secret (`secretFiles`,
 * by default the control plane's table) and, for a component with a kubeconfig, its client certificate.
 * Their digest rolls the workload on renewal.
 */
export function podCertificateFiles(
  component: KarmadaComponent,
  secretFiles: readonly PkiFile[] = COMPONENT_PKI_FILES[component],
): PkiFile[] {
  const own = secretFiles.filter((file) => !file.endsWith(".key"));
  return KUBECONFIG_COMPONENTS.includes(component) ? [...own, `${component}-client.crt`] : own;
}

/** Directory kubeconfigs are mounted at / written to; the file is `<dir>/karmada.config`. */
export const KUBECONFIG_DIR = "/etc/karmada/config";
export const KUBECONFIG_PATH = `${KUBECONFIG_DIR}/karmada.config`;
