import { EtcdInClusterSettings } from "../../etcd/settings";
import type { KubeObject } from "../../kube/apply";
import { etcdBackupManifests } from "./backup";
import { etcdClusterManifests } from "./cluster";

export * from "./backup";
export * from "./cluster";
export * from "./flags";
export * from "./labels";
export * from "./names";

/** All objects of an in-cluster etcd: the cluster first, then (when configured) its backup. */
export interface EtcdInClusterManifests {
  readonly cluster: KubeObject[];
  /** Empty when `settings.backup` is absent. */
  readonly backup: KubeObject[];
}

/** Manifests of an in-cluster etcd (pure). Secrets are not among them; `<name>-cert` is referenced by name. */
export function etcdInClusterManifests(settings: EtcdInClusterSettings): EtcdInClusterManifests {
  return { cluster: etcdClusterManifests(settings), backup: etcdBackupManifests(settings) };
}
