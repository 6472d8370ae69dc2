import { k8s } from "cdk8s-plus-33";
import { renderFlags } from "../../controlplane/flags-render";
import { EtcdInClusterSettings } from "../../etcd/settings";
import { ETCD_CERT_SECRET_KEYS, ETCD_PORTS, etcdClientServiceUrl, etcdObjectNames } from "./names";

/** Where a member container mounts its certificates. */
export const ETCD_PKI_DIR = "/etc/etcd/pki";
/**
 * Where a member container mounts its data volume. etcd's `--data-dir` is a subdirectory of it (so a
 * filesystem's `lost+found` does not sit among etcd's files), `data` or, after stale data was set aside,
 * `data.<n>`: the entrypoint chooses (memberEntrypoint.ts).
 */
export const ETCD_DATA_MOUNT = "/var/lib/etcd";

/** Environment variable holding the pod name, expanded by Kubernetes in the container arguments. */
export const POD_NAME_ENV = "POD_NAME";

/** Path of a member certificate file inside the container. */
function pkiFile(key: keyof typeof ETCD_CERT_SECRET_KEYS): string {
  return `${ETCD_PKI_DIR}/${ETCD_CERT_SECRET_KEYS[key]}`;
}

/** This member's DNS name, `$(POD_NAME)` expanded by the kubelet so one pod template serves every member. */
export function etcdSelfDnsName(settings: EtcdInClusterSettings): string {
  const { headlessService } = etcdObjectNames(settings);
  return `$(${POD_NAME_ENV}).${headlessService}.${settings.namespace}.svc.${settings.clusterDomain}`;
}

/**
 * Flags of every member, the same for any replica count: TLS with client-certificate authentication on
 * client AND peer traffic, https URLs throughout, the advertised client URL from the pod name. The
 * member's name, data directory and membership are added at start by the entrypoint
 * (memberEntrypoint.ts, `ENTRYPOINT_FLAGS`). `extraArgs` override and extend.
 */
export function etcdFlags(settings: EtcdInClusterSettings): string[] {
  return renderFlags(
    {
      "listen-client-urls": `https://0.0.0.0:${ETCD_PORTS.client}`,
      "advertise-client-urls": `https://${etcdSelfDnsName(settings)}:${ETCD_PORTS.client}`,
      "listen-peer-urls": `https://0.0.0.0:${ETCD_PORTS.peer}`,
      "initial-cluster-token": `${settings.namespace}-${settings.name}`,
      // Plain HTTP, only /health and /metrics: what the kubelet probes.
      "listen-metrics-urls": `http://0.0.0.0:${ETCD_PORTS.metrics}`,
      "cert-file": pkiFile("serverCert"),
      "key-file": pkiFile("serverKey"),
      "trusted-ca-file": pkiFile("ca"),
      "client-cert-auth": "true",
      "peer-cert-file": pkiFile("peerCert"),
      "peer-key-file": pkiFile("peerKey"),
      "peer-trusted-ca-file": pkiFile("ca"),
      "peer-client-cert-auth": "true",
      "quota-backend-bytes": String(settings.quotaBackendBytes),
      "snapshot-count": "10000",
    },
    settings.extraArgs,
  );
}

/**
 * `ETCDCTL_*` of a container that talks to the cluster through the client Service (ready members only)
 * with the server pair, which also carries clientAuth.
 */
export function etcdctlEnv(settings: EtcdInClusterSettings): k8s.EnvVar[] {
  return [
    { name: "ETCDCTL_API", value: "3" },
    { name: "ETCDCTL_ENDPOINTS", value: etcdClientServiceUrl(settings) },
    { name: "ETCDCTL_CACERT", value: pkiFile("ca") },
    { name: "ETCDCTL_CERT", value: pkiFile("serverCert") },
    { name: "ETCDCTL_KEY", value: pkiFile("serverKey") },
  ];
}
