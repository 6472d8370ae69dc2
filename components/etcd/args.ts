/**
 * What an {@link EtcdCluster} is given: its Args and the values its fields accept. Apart from the
 * component so that its plan (etcd/plan.ts) reads the Args type without importing the component.
 */
import type { EtcdHostsArgs } from "../../lib/etcd/hosts/config";
import type { EtcdInClusterArgs } from "../../lib/etcd/config";
import type { CaSource } from "../../lib/pki/issue";
import type { RotationSettings } from "../../lib/pki/rotation";
import type { EtcdExternalConfig } from "./external";

/** Every value `EtcdClusterArgs.mode` accepts, in the order error messages list them. */
export const ETCD_MODES = ["inCluster", "hosts", "external"] as const;
/** Where etcd runs: `inCluster`, `hosts` or `external` (see {@link EtcdClusterArgs.mode}). */
export type EtcdMode = (typeof ETCD_MODES)[number];

/** PKI settings of an etcd cluster. */
export interface EtcdPkiConfig {
  /** Bring your own etcd CA (PEMs). @default - a new CA is generated (RSA 3072, 10 years) */
  readonly ca?: CaSource;
  /**
   * Lifetime in hours (an integer of at least 1) of the etcd CA generated here; ignored when you bring
   * `ca`. Must exceed `leafValidityHours`; the CA is never rotated by `rotation`.
   * @default 87600 (10 years)
   */
  readonly caValidityHours?: number;
  /**
   * Lifetime in hours (an integer of at least 2) of the certificates issued from the etcd CA: member
   * server and peer certificates and the client certificates (health check, karmada-apiserver). Must be
   * below `caValidityHours` of a generated CA, and a brought `ca` must stay valid that long; they are
   * reissued on `pulumi up` once inside the renew window (see `rotation`).
   * @default 8760 (1 year)
   */
  readonly leafValidityHours?: number;
  /** Leaf renewal window and "rotate now" counter. @default renew a third of the validity early */
  readonly rotation?: RotationSettings;
  /** Extra DNS names / IPs for the member certificates. @default [] */
  readonly extraSans?: string[];
}

/** Arguments of an {@link EtcdCluster}: the mode and the settings section of that mode. */
export interface EtcdClusterArgs {
  /**
   * Where etcd runs: `inCluster` (a StatefulSet on the host cluster given by the `kubernetes` provider
   * in resource options), `hosts` (binaries on hosts over SSH, systemd or supervisor) or `external`
   * (an existing cluster; no resources are created).
   * @default "inCluster"
   */
  readonly mode?: EtcdMode;
  /** Settings of the in-cluster mode. @default - one member, 8Gi PVC, namespace `karmada-system` */
  readonly inCluster?: Partial<EtcdInClusterArgs> & {
    /**
     * Create the namespace. It is kept on `pulumi destroy` (deleting it would delete the PVCs) unless
     * `deleteDataOnDestroy`. @default true
     */
    readonly createNamespace?: boolean;
  };
  /**
   * Hosts reached over SSH, their service runner, artifact source, backup and restore; required in
   * `hosts` mode (see docs/hosts.md).
   */
  readonly hosts?: EtcdHostsArgs;
  /** Endpoints and credentials of an external etcd; required in `external` mode. */
  readonly external?: EtcdExternalConfig;
  /** Certificates of the managed modes. @default - generated CA, 1-year leaves */
  readonly pki?: EtcdPkiConfig;
  /**
   * Protect every resource of the cluster (CA, members, data, namespace) from deletion, as production
   * estates do (the policy pack's `stateful-protected`). @default false
   */
  readonly protect?: boolean;
}
