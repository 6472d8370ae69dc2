import * as pulumi from "@pulumi/pulumi";
import { MemberSettings } from "../../lib/members/config";
import { ConfigError } from "../../lib/validation/errors";
import type { KarmadaControlPlane } from "../karmadaControlPlane";

/** What every part of one member's registration is built with. */
export interface MemberContext {
  /** The MemberRegistration's Pulumi name: prefix of every child. */
  readonly name: string;
  readonly parent: pulumi.Resource;
  readonly controlPlane: KarmadaControlPlane;
  /** Provider of the member cluster (from the component's resource options). */
  readonly member: pulumi.ProviderResource;
  readonly settings: MemberSettings;
}

/** Options of member-side children: the member's provider, retained on delete when forced out. */
export function memberOptions(ctx: MemberContext, dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]>) {
  return { parent: ctx.parent, provider: ctx.member, dependsOn, retainOnDelete: ctx.settings.forceRemove };
}

/**
 * Options of Karmada-side children: always the control plane's Karmada provider, passed explicitly, and
 * always after the control plane's controllers (which come after every control-plane object inside
 * Karmada), so that `destroy` deletes them while garbage collection and finalizers still run.
 */
export function karmadaOptions(ctx: MemberContext, dependsOn: pulumi.Resource[] = []) {
  return {
    parent: ctx.parent,
    provider: ctx.controlPlane.karmadaProvider,
    dependsOn: [...ctx.controlPlane.controllers, ...dependsOn],
  };
}

/**
 * The member's kubernetes provider from the component's options. Never the ambient default, never the
 * Karmada provider (member objects inside karmada-apiserver would "register" Karmada with itself).
 */
export function requireMemberProvider(
  component: pulumi.ComponentResource,
  controlPlane: KarmadaControlPlane,
): pulumi.ProviderResource {
  const provider = component.getProvider("kubernetes::");
  if (!provider) {
    throw new ConfigError(
      "opts.provider",
      "MemberRegistration needs the member cluster's kubernetes provider in its resource options",
      "{ provider: memberProvider } or { providers: { kubernetes: memberProvider } }",
    );
  }
  if (provider === controlPlane.karmadaProvider) {
    throw new ConfigError(
      "opts.provider",
      "is the Karmada provider, not a member cluster's",
      "the member cluster's provider",
    );
  }
  return provider;
}

/** Cluster names already registered per control plane, so two registrations cannot claim one name. */
const registered = new WeakMap<KarmadaControlPlane, Map<string, string>>();

/** Records `clusterName` for `controlPlane`; a second registration of the name is a ConfigError. */
export function claimClusterName(
  controlPlane: KarmadaControlPlane,
  clusterName: string,
  owner: string,
): void {
  const names = registered.get(controlPlane) ?? new Map<string, string>();
  registered.set(controlPlane, names);
  const previous = names.get(clusterName);
  if (previous !== undefined) {
    throw new ConfigError(
      "clusterName",
      `${JSON.stringify(clusterName)} is already registered by ${JSON.stringify(previous)}`,
      "a cluster name not yet registered with this control plane",
    );
  }
  names.set(clusterName, owner);
}
