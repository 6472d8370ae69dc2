import { EtcdInClusterSettings } from "../../etcd/settings";
import type { KubeObject } from "../../kube/object";
import { etcdBackupManifests } from "./backup";
import { etcdClusterManifests } from "./cluster";
import { etcdBootstrapManifests, etcdMembershipManifests } from "./membership";

export * from "./backup";
export * from "./cluster";
export * from "./flags";
export * from "./labels";
export * from "./memberEntrypoint";
export * from "./membership";
export * from "./names";

/** All objects of an in-cluster etcd, in apply order: bootstrap record, cluster, membership job, backup. */
export interface EtcdInClusterManifests {
  /** The bootstrap ConfigMap: written once (apply with `ignoreChanges: ["data"]`). */
  readonly bootstrap: KubeObject[];
  readonly cluster: KubeObject[];
  /** The membership job, after the cluster (a scale-in's pods must be gone). */
  readonly membership: KubeObject[];
  /** Empty when `settings.backup` is absent. */
  readonly backup: KubeObject[];
}

/** Manifests of an in-cluster etcd (pure). Secrets are not among them; `<name>-cert` is referenced by name. */
export function etcdInClusterManifests(settings: EtcdInClusterSettings): EtcdInClusterManifests {
  return {
    bootstrap: etcdBootstrapManifests(settings),
    cluster: etcdClusterManifests(settings),
    membership: etcdMembershipManifests(settings),
    backup: etcdBackupManifests(settings),
  };
}
