/**
 * The components this package serves to other languages, by type token (the token each passes to
 * `super`, so a URN of any of them names its entry here).
 */
import * as pulumi from "@pulumi/pulumi";
import { Addon } from "../components/addon";
import { EtcdCluster } from "../components/etcdCluster";
import { KarmadaControlPlane } from "../components/karmadaControlPlane";
import { MemberRegistration } from "../components/memberRegistration";

/** A component class as the provider calls it: `new (name, args, opts)`. */
export type ServedComponent = new (
  name: string,
  args: never,
  opts?: pulumi.ComponentResourceOptions,
) => pulumi.ComponentResource;

/** Package name and module of every type token (`karmada:index:<Class>`). */
export const PACKAGE = "karmada";
export const MODULE = "index";

export const SERVED_COMPONENTS: Readonly<Record<string, ServedComponent>> = {
  [`${PACKAGE}:${MODULE}:EtcdCluster`]: EtcdCluster,
  [`${PACKAGE}:${MODULE}:KarmadaControlPlane`]: KarmadaControlPlane,
  [`${PACKAGE}:${MODULE}:MemberRegistration`]: MemberRegistration,
  [`${PACKAGE}:${MODULE}:Addon`]: Addon,
};
