/** Resolved settings of an in-cluster etcd: what its manifests are computed from (see ./config.ts for the args). */
import { ResourceRequirements } from "../controlplane/settings";
import { EtcdReplicas, IMAGE_PULL_POLICIES } from "./config";

/**
 * Where members keep their data. `pvc` survives pod and node loss; `emptyDir` loses everything when a
 * pod goes (tests only, never a default); `hostPath` pins the single member to a node's directory.
 */
export type EtcdStorage =
  | {
      /** A PersistentVolumeClaim per member (from the StatefulSet's claim template). */
      readonly kind: "pvc";
      /** Requested size of each member's claim, a quantity such as "8Gi". */
      readonly size: string;
      /** Storage class of the claims. @default - the cluster's default class */
      readonly storageClassName?: string;
    }
  | {
      /** A pod-lifetime volume: data is lost whenever a member's pod goes. */
      readonly kind: "emptyDir";
    }
  | {
      /** A directory on the node (single member only; created root-owned if missing). */
      readonly kind: "hostPath";
      /** Absolute path of the data directory on the node. */
      readonly path: string;
    };

/** Where backups go: a PersistentVolumeClaim (ours or an existing one) or a node directory. */
export type EtcdBackupTarget =
  | {
      /** Snapshots on a PersistentVolumeClaim. */
      readonly kind: "pvc";
      /** Use this existing claim (same namespace) instead of creating `<name>-backup`. @default - created */
      readonly existingClaim?: string;
      /** Size of the claim created here (ignored with `existingClaim`), a quantity such as "20Gi". */
      readonly size: string;
      /** Storage class of the claim created here. @default - the cluster's default class */
      readonly storageClassName?: string;
    }
  | {
      /** Snapshots in a directory on a node (created root-owned if missing). */
      readonly kind: "hostPath";
      /** Absolute path of the snapshot directory on the node. */
      readonly path: string;
      /** Node the backup job runs on, so that every snapshot lands in one directory. @default - any node */
      readonly nodeName?: string;
    };

/** Periodic snapshots of an in-cluster etcd. */
export interface EtcdBackupSettings {
  /** Cron schedule (five fields, host cluster time zone). */
  readonly schedule: string;
  /** How many snapshots to keep; older ones are deleted after each successful backup. */
  readonly retain: number;
  /** Where the snapshots are written. */
  readonly target: EtcdBackupTarget;
  /** Image with a POSIX shell, `sha256sum`, `mv` and `rm` (the etcd image has only a shell). */
  readonly toolsImage: string;
}

/** Resolved settings of an etcd cluster running as a StatefulSet on a Kubernetes cluster. */
export interface EtcdInClusterSettings {
  /** Name of the StatefulSet and headless Service; the client Service is `<name>-client`. */
  readonly name: string;
  /** Host-cluster namespace of every etcd object. */
  readonly namespace: string;
  /** DNS domain of the cluster etcd runs on. */
  readonly clusterDomain: string;
  /** Member count: 1, 3 or 5. */
  readonly replicas: EtcdReplicas;
  /** Full image reference. */
  readonly image: string;
  /** Pull policy of the etcd containers. */
  readonly imagePullPolicy: (typeof IMAGE_PULL_POLICIES)[number];
  /** Where members keep their data. */
  readonly storage: EtcdStorage;
  /** CPU and memory requests and limits of each member. */
  readonly resources: ResourceRequirements;
  /** Extra labels of the StatefulSet and its pods (the component's own labels win on a clash). */
  readonly labels: Readonly<Record<string, string>>;
  /** Extra annotations of the StatefulSet and its pods. */
  readonly annotations: Readonly<Record<string, string>>;
  /** PriorityClass of the pods; `""` for none. */
  readonly priorityClassName: string;
  /** Extra etcd flags, name without dashes → value; override generated flags of the same name. */
  readonly extraArgs: Readonly<Record<string, string>>;
  /** Backend size limit in bytes (`--quota-backend-bytes`). */
  readonly quotaBackendBytes: number;
  /** Whether Pulumi waits for readiness (false only in the test bed, whose pods never run). */
  readonly awaitWorkloads: boolean;
  /** Whether destroying the cluster deletes its PersistentVolumeClaims (and with them the data). */
  readonly deleteDataOnDestroy: boolean;
  /** Periodic snapshots; absent: none. */
  readonly backup?: EtcdBackupSettings;
}
