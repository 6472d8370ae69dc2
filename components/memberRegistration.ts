import * as pulumi from "@pulumi/pulumi";
import { SyncMode } from "../lib/members/config";
import { claimClusterName, claimCredentialsNamespace, MemberContext } from "./members/context";
import { planMember } from "./members/plan";
import type { MemberRegistrationArgs } from "./members/args";
import { registerPullMember } from "./members/pull";
import { registerPushMember } from "./members/push";

export type { MemberRegistrationArgs } from "./members/args";

/**
 * Registers one member cluster with a Karmada control plane, as `karmadactl join` (Push) or
 * `karmadactl register` (Pull) would, with the same object kinds and names. The member is the cluster
 * of the kubernetes provider in the resource options (`provider` or `providers.kubernetes`); Karmada-side
 * objects go through `controlPlane.karmadaProvider`. A member's resources depend only on its own
 * resources and the control plane, so many members register concurrently.
 *
 * Removal deletes the Cluster object first, then the member-side objects and every credential. Child
 * names: `${name}-member-<kind>-[<ns>-]<name>` (member side), `${name}-karmada-…` (Karmada side).
 */
export class MemberRegistration extends pulumi.ComponentResource {
  /** Name of the Cluster object. */
  public readonly clusterName: string;
  /** How Karmada syncs the member: `Push` or `Pull` (`args.mode`). */
  public readonly mode: SyncMode;
  /** The Cluster object (`cluster.karmada.io/v1alpha1`). */
  public readonly cluster: pulumi.CustomResource;
  /** Execution namespace of the member inside Karmada (`karmada-es-<cluster>`). */
  public readonly executionNamespace: string;

  /**
   * Checks `args` before anything is registered (a `ConfigError` naming the field; a cluster name
   * already registered with the same control plane in this program is refused), then registers it.
   * @param name Component name; prefix of every child's Pulumi name.
   * @param args The member and the control plane it joins.
   * @param opts Resource options; their `kubernetes` provider is the member cluster.
   */
  constructor(name: string, args: MemberRegistrationArgs, opts: pulumi.ComponentResourceOptions = {}) {
    // validation before anything (this component included) is registered
    const { controlPlane, member, settings, credentials, caBundle, protect } = planMember(name, args, opts);
    super("karmada:index:MemberRegistration", name, {}, { ...opts, protect: protect ?? opts.protect });
    claimClusterName(controlPlane, settings.clusterName, name);
    if (credentials) claimCredentialsNamespace(credentials, name);

    const ctx: MemberContext = { name, parent: this, controlPlane, member, settings };
    this.clusterName = settings.clusterName;
    this.mode = settings.mode;
    this.executionNamespace = settings.names.executionNamespace;
    this.cluster =
      settings.mode === "Push" ? registerPushMember(ctx, caBundle).cluster : registerPullMember(ctx).cluster;

    this.registerOutputs({ clusterName: this.clusterName, mode: this.mode });
  }
}
