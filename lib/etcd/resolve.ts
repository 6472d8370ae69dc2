import { DEFAULT_KARMADA_VERSION, findRelease, resolveImage } from "../catalog";
import { checkAll } from "../validation/errors";
import { requireMap } from "../validation/maps";
import { EtcdInClusterArgs, EtcdReplicas } from "./config";
import { ETCD_DEFAULTS } from "./defaults";
import { EtcdBackupTarget, EtcdInClusterSettings, EtcdStorage } from "./settings";
import { quotaBytes, validateEtcdInClusterSettings } from "./validate";

/** Applies defaults and validates; every problem is a ConfigError naming `<field>.<path>`. */
export function resolveEtcdInClusterSettings(args: EtcdInClusterArgs, field = "etcd"): EtcdInClusterSettings {
  // the sections defaults are merged into must be maps, or the merge itself would fail
  checkAll(
    () =>
      args.storage === undefined ||
      requireMap(`${field}.storage`, args.storage, '{ kind: "pvc", size: "8Gi" }'),
    () =>
      args.backup === undefined || requireMap(`${field}.backup`, args.backup, "{ schedule, retain, target }"),
    () =>
      args.backup?.target === undefined ||
      requireMap(`${field}.backup.target`, args.backup.target, '{ kind: "pvc", size: "8Gi" }'),
  );
  const storage = args.storage ?? {};
  const backup = args.backup;
  const target = backup?.target ?? {};
  const settings = {
    name: args.name ?? ETCD_DEFAULTS.name,
    namespace: args.namespace ?? ETCD_DEFAULTS.namespace,
    clusterDomain: args.clusterDomain ?? ETCD_DEFAULTS.clusterDomain,
    replicas: (args.replicas ?? 1) as EtcdReplicas,
    image: args.image ?? resolveImage("etcd", findRelease(DEFAULT_KARMADA_VERSION)),
    imagePullPolicy: (args.imagePullPolicy ?? "IfNotPresent") as EtcdInClusterSettings["imagePullPolicy"],
    storage: (storage.kind === undefined || storage.kind === "pvc"
      ? { ...storage, kind: "pvc", size: ("size" in storage && storage.size) || ETCD_DEFAULTS.pvcSize }
      : storage) as EtcdStorage,
    resources: args.resources ?? ETCD_DEFAULTS.resources,
    labels: args.labels ?? {},
    annotations: args.annotations ?? {},
    priorityClassName: args.priorityClassName ?? ETCD_DEFAULTS.priorityClassName,
    extraArgs: args.extraArgs ?? {},
    quotaBackendBytes: quotaBytes(
      `${field}.quotaBackendBytes`,
      args.quotaBackendBytes ?? ETCD_DEFAULTS.quotaBackendBytes,
    ),
    awaitWorkloads: args.awaitWorkloads ?? true,
    deleteDataOnDestroy: args.deleteDataOnDestroy ?? false,
    backup: backup && {
      schedule: backup.schedule ?? ETCD_DEFAULTS.backupSchedule,
      retain: backup.retain ?? ETCD_DEFAULTS.backupRetain,
      target: (target.kind === undefined || target.kind === "pvc"
        ? { ...target, kind: "pvc", size: ("size" in target && target.size) || ETCD_DEFAULTS.backupSize }
        : target) as EtcdBackupTarget,
      toolsImage: backup.toolsImage ?? ETCD_DEFAULTS.toolsImage,
    },
  };
  return validateEtcdInClusterSettings(settings, field);
}
