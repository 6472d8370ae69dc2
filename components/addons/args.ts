/**
 * What an {@link Addon} is given. Apart from the component so that its plan (addons/plan.ts) reads the
 * Args type without importing the component.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { AddonConfig } from "../../lib/addons/config";
import type { EtcdCluster } from "../etcdCluster";
import type { KarmadaControlPlane } from "../karmadaControlPlane";

/** A member cluster an addon is installed for (estimator) or onto (`target: "members"`). */
export interface AddonMember {
  /** The member's cluster name; prefixes the Pulumi names of its resources. */
  readonly clusterName: string;
  /** Member kubeconfig (scheduler estimator), stored as a secret. @default - none */
  readonly kubeconfig?: pulumi.Input<string>;
  /** Provider of the member (`target: "members"`). @default - none */
  readonly provider?: pulumi.ProviderResource;
}

/** Arguments of an {@link Addon}: the plain {@link AddonConfig} plus the components it attaches to. */
export interface AddonArgs extends AddonConfig {
  /** The control plane whose catalog, registry and namespace the addon follows. */
  readonly controlPlane: KarmadaControlPlane;
  /** Karmada's etcd; required by `search`. @default - none */
  readonly etcd?: EtcdCluster;
  /** Members, for `schedulerEstimator` and `target: "members"`. @default [] */
  readonly members?: readonly AddonMember[];
}
