import { OwnedFlags } from "../validation/owned-flags";

// Settings named in the table (what the user changes instead of the flag).
const CLIENT_TLS = "its fixed client TLS (https only, client certificates it issues)";
const PEER_TLS = "its fixed peer TLS (https only, peer certificates it issues)";
const MEMBERS = "replicas, name and namespace (the StatefulSet's pods behind its headless Service)";

/**
 * Flags an in-cluster etcd member owns (rendered by `etcdFlags` in lib/manifests/etcd/flags.ts, or added
 * at start by its entrypoint, lib/manifests/etcd/memberEntrypoint.ts):
 * identity, data directory, https listeners and their certificates, membership, backend quota.
 * `validateEtcdInClusterSettings` refuses them in `extraArgs`; the rest (`snapshot-count`,
 * `heartbeat-interval`…) is tunable. etcd on hosts takes no `extraArgs`: its config file is generated
 * whole (lib/etcd/hosts/etcdConfigFile.ts).
 */
export const ETCD_OWNED_FLAGS: OwnedFlags = {
  name: MEMBERS,
  "data-dir": "storage",
  "listen-client-urls": CLIENT_TLS,
  "advertise-client-urls": CLIENT_TLS,
  "cert-file": CLIENT_TLS,
  "key-file": CLIENT_TLS,
  "trusted-ca-file": CLIENT_TLS,
  "client-cert-auth": CLIENT_TLS,
  "listen-peer-urls": PEER_TLS,
  "initial-advertise-peer-urls": PEER_TLS,
  "peer-cert-file": PEER_TLS,
  "peer-key-file": PEER_TLS,
  "peer-trusted-ca-file": PEER_TLS,
  "peer-client-cert-auth": PEER_TLS,
  "initial-cluster": MEMBERS,
  "initial-cluster-state": MEMBERS,
  "initial-cluster-token": MEMBERS,
  "listen-metrics-urls": "its fixed probe port (the kubelet probes /health there)",
  "quota-backend-bytes": "quotaBackendBytes",
};
