/**
 * What a {@link MemberRegistration} is given. Apart from the component so that its plan
 * (members/plan.ts) reads the Args type without importing the component.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MemberRegistrationConfig } from "../../lib/members/config";
import type { KarmadaControlPlane } from "../karmadaControlPlane";

/**
 * Arguments of a {@link MemberRegistration}: the plain {@link MemberRegistrationConfig} plus the control
 * plane it joins.
 */
export interface MemberRegistrationArgs extends MemberRegistrationConfig {
  /** The control plane to register with; its Karmada provider creates every Karmada-side object. */
  readonly controlPlane: KarmadaControlPlane;
  /**
   * PEM of the CA Karmada trusts for the member's API server, when it differs from the member's own
   * cluster CA (e.g. a load balancer in front of it). Push only.
   * @default - the `ca.crt` the member's token controller puts into the token Secret
   */
  readonly caBundle?: pulumi.Input<string>;
}
