import * as pulumi from "@pulumi/pulumi";
import { MemberSettings } from "../../lib/members/settings";
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

/** Cluster names registered per control plane (name → owning registration), so two cannot claim one. */
const registered = new WeakMap<KarmadaControlPlane, Map<string, string>>();

/** The registration that already claimed `clusterName` at `controlPlane`, if any. */
export function clusterNameOwner(controlPlane: KarmadaControlPlane, clusterName: string): string | undefined {
  return registered.get(controlPlane)?.get(clusterName);
}

/** Cluster names registered with `controlPlane` in this program so far. */
export function registeredClusterNames(controlPlane: KarmadaControlPlane): string[] {
  return [...(registered.get(controlPlane)?.keys() ?? [])];
}

/** Records `clusterName` for `controlPlane` (after {@link clusterNameOwner} found it free). */
export function claimClusterName(
  controlPlane: KarmadaControlPlane,
  clusterName: string,
  owner: string,
): void {
  const names = registered.get(controlPlane) ?? new Map<string, string>();
  registered.set(controlPlane, names);
  names.set(clusterName, owner);
}

/**
 * Member-side credential namespaces in use, so that two registrations never share one on one member API
 * server (they would share the fixed-name impersonator account, and removing one would remove the
 * other's credentials). Keyed two ways, as a program can reach one server either way: by the member's
 * provider object, and by the member's `apiEndpoint` at one control plane. Values: namespace → owner.
 */
const byMemberProvider = new WeakMap<pulumi.ProviderResource, Map<string, string>>();
const byEndpoint = new WeakMap<KarmadaControlPlane, Map<string, string>>();

/** What identifies one registration's member-side credentials. */
export interface CredentialsPlace {
  readonly controlPlane: KarmadaControlPlane;
  readonly member: pulumi.ProviderResource;
  readonly apiEndpoint: string;
  readonly namespace: string;
}

const endpointKey = (place: CredentialsPlace) => `${place.apiEndpoint} ${place.namespace}`;

/** The registration already keeping its member credentials in `place`, if any. */
export function credentialsNamespaceOwner(place: CredentialsPlace): string | undefined {
  return (
    byMemberProvider.get(place.member)?.get(place.namespace) ??
    byEndpoint.get(place.controlPlane)?.get(endpointKey(place))
  );
}

/** Records `place` for `owner` (after {@link credentialsNamespaceOwner} found it free). */
export function claimCredentialsNamespace(place: CredentialsPlace, owner: string): void {
  const ofProvider = byMemberProvider.get(place.member) ?? new Map<string, string>();
  byMemberProvider.set(place.member, ofProvider);
  ofProvider.set(place.namespace, owner);
  const ofControlPlane = byEndpoint.get(place.controlPlane) ?? new Map<string, string>();
  byEndpoint.set(place.controlPlane, ofControlPlane);
  ofControlPlane.set(endpointKey(place), owner);
}
