import * as pulumi from "@pulumi/pulumi";
import { AddonConfig, AddonTarget, ControlPlaneBuiltin } from "../lib/addons/config";
import { installBuiltin } from "./addons/builtin";
import { installEstimator } from "./addons/estimator";
import { applyManifests, GenericTarget, installChart } from "./addons/generic";
import { AddonPlan, planAddon } from "./addons/plan";
import type { AddonArgs } from "./addons/args";

export type { AddonArgs, AddonMember } from "./addons/args";

/**
 * Something installed next to or into a Karmada estate, one Pulumi resource per Kubernetes object:
 * - built-ins `descheduler`, `search` (+ APIService), `metricsAdapter` (+ metrics APIServices) on the
 *   host cluster, with the control plane's images, registry and namespace — the alternative to
 *   `components.<kind>.enabled` on the control plane for adding them to an estate whose control plane
 *   args stay untouched; `schedulerEstimator`, one per member, from each member's kubeconfig;
 * - generic `manifests` (objects, YAML text or files) and `helm` charts onto the control plane
 *   (karmada-apiserver), the host cluster, or every listed member.
 * The host cluster is the `kubernetes` provider of this component's options, else the control plane's.
 */
export class Addon extends pulumi.ComponentResource {
  /** What was installed (`args.kind`). */
  public readonly kind: AddonConfig["kind"];
  /** Where its objects went: `args.target`, or the kind's default when that was omitted. */
  public readonly target: AddonTarget;
  /** Every resource the addon created (Helm: the Chart component). */
  public readonly resources: pulumi.Resource[];

  /**
   * Checks `args` before anything is registered (a `ConfigError` naming the field), then installs.
   * @param name Component name; prefix of every child's Pulumi name.
   * @param args What to install and where.
   * @param opts Resource options; a `kubernetes` provider here is the host cluster (else the control
   *   plane's).
   */
  constructor(name: string, args: AddonArgs, opts: pulumi.ComponentResourceOptions = {}) {
    // validation before anything (this component included) is registered
    const plan = planAddon(name, args, opts);
    super("karmada:index:Addon", name, {}, opts);
    this.target = plan.target;
    this.kind = plan.kind;
    this.resources = this.install(name, plan);
    this.registerOutputs({ kind: this.kind, target: this.target });
  }

  private targets(name: string, plan: AddonPlan): GenericTarget[] {
    const cp = plan.controlPlane;
    if (this.target === "controlPlane") {
      // after the controllers (and through them every control-plane object inside Karmada), so that
      // destroy deletes these while garbage collection, finalizers and webhooks still run
      return [{ prefix: name, provider: cp.karmadaProvider, dependsOn: cp.controllers }];
    }
    if (this.target === "host") return [{ prefix: name, provider: plan.hostProvider!, dependsOn: [] }];
    return plan.members.map((m) => ({
      prefix: `${name}-${m.clusterName}`,
      provider: m.provider!,
      dependsOn: [],
    }));
  }

  private install(name: string, plan: AddonPlan): pulumi.Resource[] {
    const overrides = plan.overrides;
    switch (plan.kind) {
      case "descheduler":
      case "search":
      case "metricsAdapter":
        return installBuiltin(
          { name, parent: this, controlPlane: plan.controlPlane, host: plan.hostProvider!, etcd: plan.etcd },
          plan.kind as ControlPlaneBuiltin,
          overrides,
        );
      case "schedulerEstimator":
        return plan.members.flatMap((m) =>
          installEstimator(
            name,
            this,
            plan.controlPlane,
            plan.hostProvider!,
            { clusterName: m.clusterName, kubeconfig: m.kubeconfig! },
            overrides,
          ),
        );
      case "manifests":
        return this.targets(name, plan).flatMap((t) => applyManifests(this, t, plan.objects));
      case "helm":
        return this.targets(name, plan).map((t) => installChart(this, t, plan.helm!));
    }
  }
}
