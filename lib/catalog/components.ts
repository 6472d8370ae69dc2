/**
 * The processes a Karmada estate is made of. The names are the upstream binary/image names, which is
 * also how users find them in the Karmada docs.
 */
export const KARMADA_COMPONENTS = [
  "karmada-apiserver",
  "karmada-aggregated-apiserver",
  "kube-controller-manager",
  "karmada-controller-manager",
  "karmada-scheduler",
  "karmada-webhook",
  "karmada-metrics-adapter",
  "karmada-descheduler",
  "karmada-search",
  "karmada-scheduler-estimator",
  "karmada-agent",
] as const;

/** One of {@link KARMADA_COMPONENTS}, e.g. `karmada-scheduler`. */
export type KarmadaComponent = (typeof KARMADA_COMPONENTS)[number];

/** Control-plane components that always run. */
export const CORE_COMPONENTS: readonly KarmadaComponent[] = [
  "karmada-apiserver",
  "karmada-aggregated-apiserver",
  "kube-controller-manager",
  "karmada-controller-manager",
  "karmada-scheduler",
  "karmada-webhook",
];

/** Control-plane components that run only when enabled. */
export const OPTIONAL_COMPONENTS: readonly KarmadaComponent[] = [
  "karmada-metrics-adapter",
  "karmada-descheduler",
  "karmada-search",
];

/**
 * Every image the catalog knows: the Karmada components, etcd, and the tools image of etcd's backup
 * job (a shell with coreutils: the etcd image has only a bare shell), so that one registry setting
 * rewrites every image an estate pulls.
 */
export type ImageName = KarmadaComponent | "etcd" | "etcd-backup-tools";

/** Every {@link ImageName}, for validation messages. */
export const IMAGE_NAMES: readonly ImageName[] = [...KARMADA_COMPONENTS, "etcd", "etcd-backup-tools"];
