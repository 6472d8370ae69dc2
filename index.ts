/**
 * Pulumi components that make a whole Karmada estate declarative: {@link EtcdCluster},
 * {@link KarmadaControlPlane}, {@link MemberRegistration} and {@link Addon}, the version
 * {@link catalog}, and {@link ConfigError}, which every validation failure is. The config-driven stack
 * program is the `pulumi-karmada/stack` module.
 * @module pulumi-karmada
 */
export * from "./components";
export * as catalog from "./lib/catalog";
export { ConfigError } from "./lib/validation/errors";

// Types the components' args and public fields are made of, so programs can name them (and the API
// reference documents them): settings users give, then the resolved forms the components expose.
export type { EtcdExternalConfig } from "./components/etcd/external";
export type {
  AddonConfig,
  AddonKind,
  AddonTarget,
  BuiltinOverrides,
  HelmChartConfig,
  ManifestSource,
} from "./lib/addons/config";
export type { ApiServerExposureConfig, ComponentConfig, ControlPlaneConfig } from "./lib/controlplane/config";
export type {
  ApiServiceHosts,
  ComponentBinaryConfig,
  ControlPlaneHostsConfig,
} from "./lib/controlplane/hosts/config";
export type { CrdSource } from "./lib/crds/source";
export type { EtcdBackupArgs, EtcdHostsArgs, EtcdSnapshotSource } from "./lib/etcd/hosts/config";
export type { EtcdInClusterArgs } from "./lib/etcd/config";
export type { EtcdStorage, EtcdBackupTarget } from "./lib/etcd/settings";
export type { ArtifactSource } from "./lib/hosts/artifact";
export type { ServiceManager } from "./lib/hosts/service";
export type { HostSpec, ProxySpec } from "./lib/hosts/spec";
export type { KubeObject } from "./lib/kube/apply";
export type {
  AgentIdentity,
  ClusterTaint,
  ClusterTaintEffect,
  MemberPermissions,
  MemberRegistrationConfig,
  PolicyRule,
  PullOptions,
  SyncMode,
} from "./lib/members/config";
export type { CaSource } from "./lib/pki/issue-args";
export type { RotationSettings } from "./lib/pki/rotation";
export type { ControlPlaneComponent } from "./lib/controlplane/flags-ports";
export type { BinaryFamily, ComponentBinary } from "./lib/controlplane/hosts/binaries";
export type { ControlPlaneHostPaths, ControlPlaneHostsSettings } from "./lib/controlplane/hosts/settings";
export type {
  ApiServerServiceType,
  ApiServerSettings,
  ComponentSettings,
  ControlPlaneSettings,
  EtcdConnection,
  ResourceRequirements,
} from "./lib/controlplane/settings";
export type { EtcdBackupSettings, EtcdInClusterSettings } from "./lib/etcd/settings";
export type { ResolvedArtifact } from "./lib/hosts/artifact";
export type { ResolvedHost, ResolvedProxy } from "./lib/hosts/spec";
export type { HostPort } from "./lib/validation/endpoints";
