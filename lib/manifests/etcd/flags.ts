import { renderFlags } from "../../controlplane/flags-render";
import { EtcdInClusterSettings } from "../../etcd/settings";
import { ETCD_CERT_SECRET_KEYS, ETCD_PORTS, etcdInitialCluster, etcdObjectNames } from "./names";

/** Where a member container mounts its certificates. */
export const ETCD_PKI_DIR = "/etc/etcd/pki";
/** Where a member container mounts its data volume; etcd's data directory is a subdirectory of it. */
export const ETCD_DATA_MOUNT = "/var/lib/etcd";
/** etcd's `--data-dir`: a subdirectory, so a filesystem's `lost+found` does not sit among etcd's files. */
export const ETCD_DATA_DIR = `${ETCD_DATA_MOUNT}/data`;

/** Environment variable holding the pod name, expanded by Kubernetes in the container arguments. */
export const POD_NAME_ENV = "POD_NAME";

/**
 * Flags of every member: TLS with client-certificate authentication on client AND peer traffic, https
 * URLs throughout, the member's own name and URLs from its pod name, the full membership from the
 * headless Service names. `extraArgs` override and extend.
 */
export function etcdFlags(settings: EtcdInClusterSettings): string[] {
  const pki = (key: keyof typeof ETCD_CERT_SECRET_KEYS) => `${ETCD_PKI_DIR}/${ETCD_CERT_SECRET_KEYS[key]}`;
  const { headlessService } = etcdObjectNames(settings);
  // `$(POD_NAME)` is expanded by the kubelet, so one pod template serves every member.
  const self = `$(${POD_NAME_ENV}).${headlessService}.${settings.namespace}.svc.${settings.clusterDomain}`;
  return renderFlags(
    {
      name: `$(${POD_NAME_ENV})`,
      "data-dir": ETCD_DATA_DIR,
      "listen-client-urls": `https://0.0.0.0:${ETCD_PORTS.client}`,
      "advertise-client-urls": `https://${self}:${ETCD_PORTS.client}`,
      "listen-peer-urls": `https://0.0.0.0:${ETCD_PORTS.peer}`,
      "initial-advertise-peer-urls": `https://${self}:${ETCD_PORTS.peer}`,
      "initial-cluster": etcdInitialCluster(settings),
      "initial-cluster-state": "new",
      "initial-cluster-token": `${settings.namespace}-${settings.name}`,
      // Plain HTTP, only /health and /metrics: what the kubelet probes.
      "listen-metrics-urls": `http://0.0.0.0:${ETCD_PORTS.metrics}`,
      "cert-file": pki("serverCert"),
      "key-file": pki("serverKey"),
      "trusted-ca-file": pki("ca"),
      "client-cert-auth": "true",
      "peer-cert-file": pki("peerCert"),
      "peer-key-file": pki("peerKey"),
      "peer-trusted-ca-file": pki("ca"),
      "peer-client-cert-auth": "true",
      "quota-backend-bytes": String(settings.quotaBackendBytes),
      "snapshot-count": "10000",
    },
    settings.extraArgs,
  );
}
