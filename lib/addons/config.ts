import type { KubeObject } from "../kube/object";

/** Built-in addons (upstream `karmadactl addons` names in the docs) and the two generic kinds. */
export type AddonKind =
  "descheduler" | "search" | "metricsAdapter" | "schedulerEstimator" | "manifests" | "helm";
export const ADDON_KINDS: readonly AddonKind[] = [
  "descheduler",
  "search",
  "metricsAdapter",
  "schedulerEstimator",
  "manifests",
  "helm",
];

/** Where an addon's objects go: inside karmada-apiserver, the host cluster, or every listed member. */
export type AddonTarget = "controlPlane" | "host" | "members";
export const ADDON_TARGETS: readonly AddonTarget[] = ["controlPlane", "host", "members"];

/** Built-ins that run next to the control plane, by kind. */
export const CONTROL_PLANE_BUILTINS = {
  descheduler: "karmada-descheduler",
  search: "karmada-search",
  metricsAdapter: "karmada-metrics-adapter",
} as const;
export type ControlPlaneBuiltin = keyof typeof CONTROL_PLANE_BUILTINS;

/** Overrides of a built-in's workload; the rest comes from the control plane's settings. */
export interface BuiltinOverrides {
  /**
   * Pod replicas of the built-in's Deployment (for `schedulerEstimator`, of each member's estimator),
   * an integer of at least 1; replaces the control plane's replica count for that component.
   * @default 1 (metrics adapter: 2)
   */
  readonly replicas?: number;
  /** Extra flags, name without dashes → value. @default {} */
  readonly extraArgs?: Readonly<Record<string, string>>;
}

/** Objects to apply: given as objects, YAML text (multi-document), or YAML files, in that order. */
export interface ManifestSource {
  /**
   * Kubernetes objects given inline, each with `apiVersion`, `kind` and `metadata.name` (no
   * `generateName`); each becomes one Pulumi resource, Namespaces and CRDs applied first.
   * @default []
   */
  readonly objects?: readonly KubeObject[];
  /**
   * YAML text of one or more `---`-separated objects (a `List` is unwrapped), applied like `objects`;
   * each needs `apiVersion`, `kind` and `metadata.name`.
   * @default - none
   */
  readonly yaml?: string;
  /** Paths of YAML files. @default [] */
  readonly files?: readonly string[];
}

/** A Helm chart rendered into one Pulumi resource per object (`helm.v4.Chart`). */
export interface HelmChartConfig {
  /** Chart name (with `repo`), `oci://` reference, or local path. */
  readonly chart: string;
  /**
   * Chart version to install (the chart's own version, not the app's), as `helm install --version` takes
   * it; pin it so a later `pulumi up` does not pick up a new release.
   * @default - the newest
   */
  readonly version?: string;
  /** Repository URL. @default - none (chart is a path or OCI reference) */
  readonly repo?: string;
  /** Namespace of the release. @default - the chart's */
  readonly namespace?: string;
  /** Chart values, merged over the chart's own `values.yaml` like `helm install -f`. @default {} */
  readonly values?: Readonly<Record<string, unknown>>;
  /**
   * Leave out the CRDs in the chart's `crds/` directory (`helm install --skip-crds`), e.g. when they are
   * installed separately or already exist on the target.
   * @default false
   */
  readonly skipCrds?: boolean;
}

/** The plain part of an Addon: kind, target and kind-specific settings. */
export interface AddonConfig {
  /**
   * What to install: a built-in (`descheduler`, `search`, `metricsAdapter`: one workload next to the
   * control plane; `schedulerEstimator`: one per member) or generic objects (`manifests`, `helm`).
   */
  readonly kind: AddonKind;
  /** @default "host" for built-ins, "controlPlane" for manifests and helm */
  readonly target?: AddonTarget;
  /** Built-in workload overrides (descheduler, search, metricsAdapter, schedulerEstimator). @default {} */
  readonly overrides?: BuiltinOverrides;
  /** `kind: "manifests"`. */
  readonly manifests?: ManifestSource;
  /** `kind: "helm"`. */
  readonly helm?: HelmChartConfig;
}
