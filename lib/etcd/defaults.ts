import { DEFAULT_KARMADA_VERSION, KARMADA_SYSTEM_NAMESPACE, findRelease, resolveImage } from "../catalog";

/** Defaults of {@link EtcdInClusterArgs}, in one place. */
export const ETCD_DEFAULTS = {
  name: "etcd",
  namespace: KARMADA_SYSTEM_NAMESPACE,
  clusterDomain: "cluster.local",
  pvcSize: "8Gi",
  quotaBackendBytes: "8Gi",
  priorityClassName: "system-node-critical",
  resources: { requests: { cpu: "100m", memory: "256Mi" } },
  backupSchedule: "0 */6 * * *",
  backupRetain: 7,
  backupSize: "20Gi",
  toolsImage: resolveImage("etcd-backup-tools", findRelease(DEFAULT_KARMADA_VERSION)),
} as const;
