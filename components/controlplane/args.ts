/**
 * What a {@link KarmadaControlPlane} is given. Apart from the component so that its plan
 * (controlplane/plan.ts) reads the Args type without importing the component.
 */
import type { ControlPlaneConfig } from "../../lib/controlplane/config";
import type { ControlPlaneHostsConfig, ControlPlaneMode } from "../../lib/controlplane/hosts";
import type { CrdSource } from "../../lib/crds";
import type { CaSource } from "../../lib/pki/issue";
import type { RotationSettings } from "../../lib/pki/rotation";
import type { EtcdCluster } from "../etcdCluster";

/** Certificates of the control plane. */
export interface ControlPlanePkiConfig {
  /** Bring your own Karmada CA. @default - generated (RSA 3072, 10 years) */
  readonly karmadaCa?: CaSource;
  /** Bring your own front-proxy CA. @default - generated */
  readonly frontProxyCa?: CaSource;
  /**
   * Lifetime in hours (an integer of at least 1) of the CAs generated here, the Karmada and front-proxy
   * CAs; a CA you bring keeps its own. Must exceed `leafValidityHours`. CAs are never rotated by
   * `rotation`, so this bounds how long the installation runs without a manual CA change.
   * @default 87600 (10 years)
   */
  readonly caValidityHours?: number;
  /**
   * Lifetime in hours (an integer of at least 2) of every leaf certificate issued here: serving and
   * client certificates of the components and the admin identity. Must be below `caValidityHours` of a
   * generated CA, and a CA you bring must stay valid that long; leaves are reissued on `pulumi up` once
   * inside the renew window (see `rotation`).
   * @default 8760 (1 year)
   */
  readonly leafValidityHours?: number;
  /**
   * Leaf renewal: leaves are reissued on a normal `pulumi up` once inside the renew window; bump
   * `generation` to rotate now. CAs and the service-account key are never rotated by this.
   * @default renew a third of the validity before expiry, generation 0
   */
  readonly rotation?: RotationSettings;
}

/**
 * Arguments of a {@link KarmadaControlPlane}: the plain {@link ControlPlaneConfig} (version, images,
 * components, API server exposure) plus the mode, the etcd and the certificates.
 */
export interface KarmadaControlPlaneArgs extends ControlPlaneConfig {
  /**
   * `containerized`: workloads on the host cluster of the `kubernetes` provider in resource options.
   * `hosts`: binaries run as services on `hosts.machines` over SSH, behind `apiServer.externalEndpoint`.
   * @default "containerized"
   */
  readonly mode?: ControlPlaneMode;
  /** Machines, binaries and endpoints of hosts mode; required there, refused otherwise. */
  readonly hosts?: ControlPlaneHostsConfig;
  /** The etcd Karmada stores its state in (any mode: inCluster, hosts, external). */
  readonly etcd: EtcdCluster;
  /** @default - generated CAs, 1-year leaves renewed a third of their validity early */
  readonly pki?: ControlPlanePkiConfig;
  /** Where Karmada's CRDs come from. @default { kind: "release" } (the release's crds.tar.gz) */
  readonly crds?: CrdSource;
  /** Publish cluster-info and bootstrap RBAC for pull-mode registration. @default true */
  readonly pullModeBootstrap?: boolean;
  /** Create the host namespace (skipped when an in-cluster etcd already created it). @default true */
  readonly createNamespace?: boolean;
  /** Protect every resource of the control plane from deletion. @default false */
  readonly protect?: boolean;
}
