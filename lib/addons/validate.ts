/** An Addon's plain settings checked before anything is applied. */
import { validateClusterName } from "../members/validate";
import { check, ErrorCollector, show } from "../validation/errors";
import { validateUnique } from "../validation/duplicates";
import { validateReplicas } from "../validation/numbers";
import { OwnedFlags, checkNotOwned } from "../validation/owned-flags";
import { CONTROL_PLANE_OWNED_FLAGS } from "../controlplane/flags-owned";
import { ESTIMATOR_OWNED_FLAGS } from "./estimatorFlags";
import {
  ADDON_KINDS,
  ADDON_TARGETS,
  AddonConfig,
  AddonKind,
  AddonTarget,
  CONTROL_PLANE_BUILTINS,
  ControlPlaneBuiltin,
} from "./config";
import { defaultTarget } from "./defaults";

/** Flags a built-in owns: the control plane's table for its component, the estimator's own table. */
function builtinOwnedFlags(kind: AddonKind): OwnedFlags | undefined {
  if (kind === "schedulerEstimator") return ESTIMATOR_OWNED_FLAGS;
  if (kind in CONTROL_PLANE_BUILTINS) {
    return CONTROL_PLANE_OWNED_FLAGS[CONTROL_PLANE_BUILTINS[kind as ControlPlaneBuiltin]];
  }
  return undefined;
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
