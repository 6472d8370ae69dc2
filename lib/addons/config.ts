import type { KubeObject } from "../kube/object";
import { validateClusterName } from "../members/validate";
import { check, ErrorCollector, show } from "../validation/errors";
import { validateUnique } from "../validation/duplicates";
import { validateReplicas } from "../validation/numbers";
import { OwnedFlags, checkNotOwned } from "../validation/owned-flags";
import { CONTROL_PLANE_OWNED_FLAGS } from "../controlplane/flags-owned";
import { ESTIMATOR_OWNED_FLAGS } from "./estimatorFlags";

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

/** Flags a built-in owns: the control plane's table for its component, the estimator's own table. */
function builtinOwnedFlags(kind: AddonKind): OwnedFlags | undefined {
  if (kind === "schedulerEstimator") return ESTIMATOR_OWNED_FLAGS;
  if (kind in CONTROL_PLANE_BUILTINS) {
    return CONTROL_PLANE_OWNED_FLAGS[CONTROL_PLANE_BUILTINS[kind as ControlPlaneBuiltin]];
  }
  return undefined;
}

/** The default target of a kind. */
export function defaultTarget(kind: AddonKind): AddonTarget {
  return kind === "manifests" || kind === "helm" ? "controlPlane" : "host";
}

/** Longest member name an estimator serves: `karmada-scheduler-estimator-` leaves 35 of 63. */
const ESTIMATOR_CLUSTER_NAME_MAX = 63 - "karmada-scheduler-estimator-".length;

/** Checks an Addon's plain settings and its member list (names only; Inputs are checked when known). */
export function validateAddonConfig(config: AddonConfig, memberNames: readonly string[]): AddonTarget {
  check(
    ADDON_KINDS.includes(config.kind),
    "kind",
    `unknown addon kind ${show(config.kind)}`,
    ADDON_KINDS.join(", "),
  );
  const target = config.target ?? defaultTarget(config.kind);
  const errors = new ErrorCollector();
  const run = (fn: () => unknown) => errors.attempt(fn);
  run(() =>
    check(
      ADDON_TARGETS.includes(target),
      "target",
      `unknown target ${show(target)}`,
      ADDON_TARGETS.join(", "),
    ),
  );
  const generic = config.kind === "manifests" || config.kind === "helm";
  if (!generic) {
    run(() => check(target === "host", "target", `${show(config.kind)} runs on the host cluster`, '"host"'));
  }
  run(() =>
    check(
      config.kind === "manifests" || config.manifests === undefined,
      "manifests",
      `is given for kind ${show(config.kind)}`,
      'kind: "manifests"',
    ),
  );
  run(() =>
    check(
      config.kind === "helm" || config.helm === undefined,
      "helm",
      `is given for kind ${show(config.kind)}`,
      'kind: "helm"',
    ),
  );
  if (config.kind === "manifests") {
    const m = config.manifests ?? {};
    run(() =>
      check(
        (m.objects?.length ?? 0) + (m.yaml ? 1 : 0) + (m.files?.length ?? 0) > 0,
        "manifests",
        "is empty",
        "objects, yaml or files",
      ),
    );
  }
  if (config.kind === "helm") {
    run(() =>
      check(
        typeof config.helm?.chart === "string" && config.helm.chart !== "",
        "helm.chart",
        "is required",
        "a chart name, path or oci:// reference",
      ),
    );
  }
  if (config.overrides?.replicas !== undefined)
    run(() => validateReplicas("overrides.replicas", config.overrides!.replicas!));
  const owned = builtinOwnedFlags(config.kind);
  if (owned !== undefined) {
    run(() =>
      checkNotOwned("overrides.extraArgs", config.overrides?.extraArgs ?? {}, {
        name: `the ${config.kind} addon`,
        flags: owned,
      }),
    );
  }
  const needsMembers = target === "members" || config.kind === "schedulerEstimator";
  run(() =>
    check(!needsMembers || memberNames.length > 0, "members", "is empty", "one entry per member cluster"),
  );
  run(() =>
    check(
      needsMembers || memberNames.length === 0,
      "members",
      `is given but target is ${show(target)}`,
      'target: "members" or kind: "schedulerEstimator"',
    ),
  );
  memberNames.forEach((n, i) =>
    run(() => {
      validateClusterName(`members[${i}].clusterName`, n);
      // the estimator's Deployment and Service are karmada-scheduler-estimator-<cluster>: 63 at most
      if (config.kind === "schedulerEstimator") {
        check(
          n.length <= ESTIMATOR_CLUSTER_NAME_MAX,
          `members[${i}].clusterName`,
          `${show(n)} is too long for the estimator's object names (karmada-scheduler-estimator-<cluster>)`,
          `at most ${ESTIMATOR_CLUSTER_NAME_MAX} characters`,
        );
      }
    }),
  );
  run(() => validateUnique("members", memberNames));
  errors.throwIfAny();
  return target;
}
