import * as pulumi from "@pulumi/pulumi";
import { AddonKind, AddonTarget, BuiltinOverrides, HelmChartConfig } from "../../lib/addons/config";
import { validateAddonConfig } from "../../lib/addons/validate";
import { loadManifests } from "../../lib/addons/manifests";
import { ConfigError, ErrorCollector, check, show } from "../../lib/validation/errors";
import type { AddonArgs, AddonMember } from "./args";
import { EtcdCluster } from "../etcdCluster";
import { KarmadaControlPlane } from "../karmadaControlPlane";
import { registeredClusterNames } from "../members/context";
import { providerFromOptions, requireComponent } from "../providers";

/** Addon kinds that run on the host cluster and so need its provider. */
const ON_HOST = ["descheduler", "search", "metricsAdapter", "schedulerEstimator"];

/** What an addon is built from, known before it registers anything. */
export interface AddonPlan {
  readonly controlPlane: KarmadaControlPlane;
  readonly target: AddonTarget;
  readonly members: readonly AddonMember[];
  /** The host cluster (built-ins, estimators, `target: "host"`). */
  readonly hostProvider?: pulumi.ProviderResource;
  /** Parsed objects of a `manifests` addon. */
  readonly objects: ReturnType<typeof loadManifests>;
  readonly kind: AddonKind;
  /** `overrides`, `{}` when not given. */
  readonly overrides: BuiltinOverrides;
  /** Karmada's etcd (`search`). */
  readonly etcd?: EtcdCluster;
  /** The chart of a `helm` addon. */
  readonly helm?: HelmChartConfig;
}

/**
 * Validation of an addon before it registers anything: its settings, the control plane and etcd it
 * references, the host provider it needs, and per member what the target needs — estimators only for
 * members registered with this control plane in this program, each with its kubeconfig.
 */
export function planAddon(name: string, args: AddonArgs, opts: pulumi.ComponentResourceOptions): AddonPlan {
  if (typeof args !== "object" || args === null)
    throw new ConfigError("args", `${show(args)} is not an object`);
  const errors = new ErrorCollector();
  const controlPlane = errors.attempt(() =>
    requireComponent("controlPlane", args.controlPlane, KarmadaControlPlane, "KarmadaControlPlane"),
  );
  if (args.etcd !== undefined)
    errors.attempt(() => requireComponent("etcd", args.etcd, EtcdCluster, "EtcdCluster"));
  const members = errors.attempt(() => {
    check(Array.isArray(args.members ?? []), "members", `${show(args.members)} is not a list`);
    (args.members ?? []).forEach((m, i) =>
      check(
        typeof m === "object" && m !== null,
        `members[${i}]`,
        `${show(m)} is not a member`,
        "{ clusterName, … }",
      ),
    );
    return args.members ?? [];
  });
  const target = errors.attempt(() =>
    validateAddonConfig(
      args,
      (members ?? []).map((m) => m.clusterName),
    ),
  );
  if (args.kind === "search" && args.etcd === undefined) {
    errors.add(
      new ConfigError("etcd", "is required by search (it caches into Karmada's etcd)", "the EtcdCluster"),
    );
  }
  const needsHost = ON_HOST.includes(args.kind) || target === "host";
  const hostProvider =
    needsHost && controlPlane
      ? errors.attempt(() => {
          const provider =
            providerFromOptions(opts, "kubernetes") ?? controlPlane.getProvider("kubernetes::");
          if (!provider) {
            throw new ConfigError(
              "opts.provider",
              `${show(args.kind)} runs on the host cluster, and neither this addon nor the control plane has its provider`,
              "{ provider: hostProvider } in the addon's options",
            );
          }
          return provider;
        })
      : undefined;
  if (controlPlane && members) checkMembers(args, target, controlPlane, members, errors);
  const objects = args.kind === "manifests" ? errors.attempt(() => loadManifests(args.manifests!)) : [];
  errors.throwIfAny(`Addon ${show(name)}`);
  return {
    controlPlane: controlPlane!,
    target: target!,
    members: members!,
    hostProvider,
    objects: objects!,
    kind: args.kind,
    overrides: args.overrides ?? {},
    etcd: args.etcd,
    helm: args.helm,
  };
}

function checkMembers(
  args: AddonArgs,
  target: AddonTarget | undefined,
  controlPlane: KarmadaControlPlane,
  members: readonly AddonMember[],
  errors: ErrorCollector,
): void {
  const registered = registeredClusterNames(controlPlane);
  members.forEach((m, i) => {
    if (args.kind === "schedulerEstimator") {
      if (!registered.includes(m.clusterName)) {
        errors.add(
          new ConfigError(
            `members[${i}].clusterName`,
            `${show(m.clusterName)} is not registered with ${show(controlPlane.name)} by this program: the estimator would serve no Cluster`,
            registered.length > 0
              ? registered.join(", ")
              : "a MemberRegistration of this control plane, created first",
          ),
        );
      }
      if (m.kubeconfig === undefined) {
        errors.add(
          new ConfigError(
            `members[${i}].kubeconfig`,
            "is required by the scheduler estimator",
            "the member's kubeconfig",
          ),
        );
      }
    }
    if (target === "members" && m.provider === undefined) {
      errors.add(
        new ConfigError(
          `members[${i}].provider`,
          'is required for target "members"',
          "the member's kubernetes provider",
        ),
      );
    }
  });
}
