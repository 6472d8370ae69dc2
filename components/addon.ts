import * as pulumi from "@pulumi/pulumi";
import { AddonConfig, AddonTarget, ControlPlaneBuiltin, validateAddonConfig } from "../lib/addons/config";
import { loadManifests } from "../lib/addons/manifests";
import { ConfigError } from "../lib/validation/errors";
import { installBuiltin } from "./addons/builtin";
import { installEstimator } from "./addons/estimator";
import { applyManifests, GenericTarget, installChart } from "./addons/generic";
import type { EtcdCluster } from "./etcdCluster";
import type { KarmadaControlPlane } from "./karmadaControlPlane";

/** A member cluster an addon is installed for (estimator) or onto (`target: "members"`). */
export interface AddonMember {
  /** The member's cluster name; prefixes the Pulumi names of its resources. */
  readonly clusterName: string;
  /** Member kubeconfig (scheduler estimator), stored as a secret. @default - none */
  readonly kubeconfig?: pulumi.Input<string>;
  /** Provider of the member (`target: "members"`). @default - none */
  readonly provider?: pulumi.ProviderResource;
}

export interface AddonArgs extends AddonConfig {
  /** The control plane whose catalog, registry and namespace the addon follows. */
  readonly controlPlane: KarmadaControlPlane;
  /** Karmada's etcd; required by `search`. @default - none */
  readonly etcd?: EtcdCluster;
  /** Members, for `schedulerEstimator` and `target: "members"`. @default [] */
  readonly members?: readonly AddonMember[];
}

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
  public readonly kind: AddonConfig["kind"];
  public readonly target: AddonTarget;
  /** Every resource the addon created (Helm: the Chart component). */
  public readonly resources: pulumi.Resource[];

  constructor(name: string, args: AddonArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("karmada:index:Addon", name, {}, opts);
    if (!args.controlPlane)
      throw new ConfigError("controlPlane", "is required", "a KarmadaControlPlane of this program");
    const members = args.members ?? [];
    this.target = validateAddonConfig(
      args,
      members.map((m) => m.clusterName),
    );
    this.kind = args.kind;
    const objects = args.kind === "manifests" ? loadManifests(args.manifests!) : [];
    this.resources = this.install(name, args, members, objects);
    this.registerOutputs({ kind: this.kind, target: this.target });
  }

  private hostProvider(cp: KarmadaControlPlane): pulumi.ProviderResource {
    const provider = this.getProvider("kubernetes::") ?? cp.getProvider("kubernetes::");
    if (!provider)
      throw new ConfigError(
        "opts.provider",
        "no host cluster provider found",
        "the control plane's host provider",
      );
    return provider;
  }

  private targets(name: string, args: AddonArgs, members: readonly AddonMember[]): GenericTarget[] {
    const cp = args.controlPlane;
    if (this.target === "controlPlane") {
      // after the controllers (and through them every control-plane object inside Karmada), so that
      // destroy deletes these while garbage collection, finalizers and webhooks still run
      return [{ prefix: name, provider: cp.karmadaProvider, dependsOn: cp.controllers }];
    }
    if (this.target === "host") return [{ prefix: name, provider: this.hostProvider(cp), dependsOn: [] }];
    return members.map((m, i) => {
      if (!m.provider)
        throw new ConfigError(
          `members[${i}].provider`,
          'is required for target "members"',
          "the member's kubernetes provider",
        );
      return { prefix: `${name}-${m.clusterName}`, provider: m.provider, dependsOn: [] };
    });
  }

  private install(
    name: string,
    args: AddonArgs,
    members: readonly AddonMember[],
    objects: ReturnType<typeof loadManifests>,
  ): pulumi.Resource[] {
    const overrides = args.overrides ?? {};
    switch (args.kind) {
      case "descheduler":
      case "search":
      case "metricsAdapter":
        return installBuiltin(
          {
            name,
            parent: this,
            controlPlane: args.controlPlane,
            host: this.hostProvider(args.controlPlane),
            etcd: args.etcd,
          },
          args.kind as ControlPlaneBuiltin,
          overrides,
        );
      case "schedulerEstimator": {
        const host = this.hostProvider(args.controlPlane);
        return members.flatMap((m, i) => {
          if (m.kubeconfig === undefined) {
            throw new ConfigError(
              `members[${i}].kubeconfig`,
              "is required by the scheduler estimator",
              "the member's kubeconfig",
            );
          }
          return installEstimator(
            name,
            this,
            args.controlPlane,
            host,
            { clusterName: m.clusterName, kubeconfig: m.kubeconfig },
            overrides,
          );
        });
      }
      case "manifests":
        return this.targets(name, args, members).flatMap((t) => applyManifests(this, t, objects));
      case "helm":
        return this.targets(name, args, members).map((t) => installChart(this, t, args.helm!));
    }
  }
}
