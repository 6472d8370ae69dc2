/**
 * What a user gives for an in-cluster etcd (`EtcdClusterArgs.inCluster`) and the values its fields allow.
 * Defaults: ./defaults.ts; resolution: ./resolve.ts; validation: ./validate.ts; resolved types: ./settings.ts.
 */
import { ResourceRequirements } from "../controlplane/settings";

/** Member counts of an in-cluster etcd: odd, so a quorum survives ⌊n/2⌋ lost members. */
export const ETCD_IN_CLUSTER_REPLICAS = [1, 3, 5] as const;
/** An allowed member count. */
export type EtcdReplicas = (typeof ETCD_IN_CLUSTER_REPLICAS)[number];

/** Pull policies of the etcd containers. */
export const IMAGE_PULL_POLICIES = ["Always", "IfNotPresent", "Never"] as const;

/** What a user gives for an in-cluster etcd; every field has a default. */
export interface EtcdInClusterArgs {
  /** Name of the StatefulSet and headless Service (DNS-1035 label, at most 45 characters). @default "etcd" */
  readonly name?: string;
  /**
   * Host-cluster namespace of every etcd object.
   * @default - in a stack (and `synth`), the control plane's namespace; an EtcdCluster of its own: `karmada-system`
   */
  readonly namespace?: string;
  /**
   * DNS domain of the host cluster (its kubelets' `--cluster-domain`). Members advertise
   * `<pod>.<name>.<namespace>.svc.<clusterDomain>`, and the certificates and the client URL Karmada gets
   * use it, so it must be the cluster's real domain.
   * @default "cluster.local"
   */
  readonly clusterDomain?: string;
  /**
   * Number of etcd members (StatefulSet pods): 1, 3 or 5, odd so a quorum survives ⌊n/2⌋ lost members.
   * Members must run on different nodes (required anti-affinity), so 3 members need 3 schedulable nodes;
   * with more than one, a PodDisruptionBudget lets only one be down at a time. Changing it later grows or
   * shrinks the running cluster without restarting its members: new pods join it, and after a scale-in
   * the Job `<name>-members` removes the stopped members from etcd (docs/operations.md).
   * @default 1
   */
  readonly replicas?: number;
  /**
   * etcd image (`repo:tag` or digest) of the members and of the backup job's snapshot step; it must
   * provide `etcd`, `etcdctl`, `etcdutl` and `/bin/sh`. Set it to mirror the image for offline installs.
   * @default - the etcd image of the default Karmada release (registry.k8s.io/etcd)
   */
  readonly image?: string;
  /**
   * When the kubelet pulls the images of every etcd container, backup job included: `Always`,
   * `IfNotPresent` or `Never` (only from the node's cache).
   * @default "IfNotPresent"
   */
  readonly imagePullPolicy?: string;
  /** Storage; `emptyDir` must be asked for explicitly. @default { kind: "pvc", size: "8Gi" } */
  readonly storage?:
    | {
        /** A PersistentVolumeClaim per member. @default "pvc" */
        readonly kind?: "pvc";
        /** Requested size of each member's claim. @default "8Gi" */
        readonly size?: string;
        /** Storage class of the claims. @default - the cluster's default class */
        readonly storageClassName?: string;
      }
    | {
        /** A pod-lifetime volume: data is lost whenever a member's pod goes (tests only). */
        readonly kind: "emptyDir";
      }
    | {
        /** A directory on the node; `replicas` must be 1. */
        readonly kind: "hostPath";
        /** Absolute path of the data directory on the node. */
        readonly path: string;
      };
  /** @default { requests: { cpu: "100m", memory: "256Mi" } } (no limits: an OOM-killed member hurts more) */
  readonly resources?: ResourceRequirements;
  /**
   * Extra labels on the StatefulSet and its pods (not on the Services or claims); the package's own
   * `app.kubernetes.io/*` labels win on a clash.
   * @default {}
   */
  readonly labels?: Readonly<Record<string, string>>;
  /** Extra annotations on the StatefulSet and its pods, e.g. for metrics scraping. @default {} */
  readonly annotations?: Readonly<Record<string, string>>;
  /**
   * PriorityClass of the member pods, so the host cluster evicts other pods before etcd under resource
   * pressure; must name a PriorityClass that exists there, or `""` for none.
   * @default "system-node-critical"
   */
  readonly priorityClassName?: string;
  /**
   * Extra etcd flags, name without dashes → string value (e.g. `heartbeat-interval`,
   * `election-timeout`); they override generated flags of the same name. Flags the component owns (TLS,
   * membership, data directory, `quota-backend-bytes`) are refused: set them through their fields.
   * @default {}
   */
  readonly extraArgs?: Readonly<Record<string, string>>;
  /** Bytes, or a quantity such as "8Gi". @default "8Gi" */
  readonly quotaBackendBytes?: number | string;
  /**
   * Wait for the StatefulSet to become ready during `pulumi up`. Turn off only where pods cannot run
   * (the API-server-only test bed): without waiting, a member that never starts goes unnoticed.
   * @default true
   */
  readonly awaitWorkloads?: boolean;
  /**
   * Delete the data when the cluster is destroyed: the members' claims go with the StatefulSet, and the
   * namespace (when created here) and the backup claim are deleted too. Left false, all three stay on
   * the host cluster and the next `up` adopts them: etcd starts on its kept data (the keys written before
   * `destroy` are there). hostPath directories are never deleted.
   * @default false (data survives `pulumi destroy`)
   */
  readonly deleteDataOnDestroy?: boolean;
  /**
   * Periodic snapshots: a CronJob `<name>-backup` saves a verified `etcdctl` snapshot into `target` and
   * keeps the newest `retain`. Give `{}` for the defaults.
   * @default - no backups
   */
  readonly backup?: {
    /**
     * Cron schedule of the backup job: five fields (minute hour day-of-month month day-of-week), in the
     * host cluster's time zone; a run is skipped while the previous one is still going.
     * @default "0 *\/6 * * *" (every six hours)
     */
    readonly schedule?: string;
    /**
     * How many snapshots to keep, 1–1000; after each successful backup older snapshots and their
     * `.sha256` files are deleted.
     * @default 7
     */
    readonly retain?: number;
    /**
     * Where snapshots (`<name>-<UTC time>.db` with a `.sha256` beside each) are written: a claim (`pvc`,
     * `<name>-backup` created here unless `existingClaim`) or a node directory (`hostPath`).
     * @default { kind: "pvc", size: "20Gi" }
     */
    readonly target?:
      | {
          /** Snapshots on a PersistentVolumeClaim. @default "pvc" */
          readonly kind?: "pvc";
          /** Use this existing claim (same namespace) instead of creating `<name>-backup`. @default - created */
          readonly existingClaim?: string;
          /** Size of the claim created here. @default "20Gi" */
          readonly size?: string;
          /** Storage class of the claim created here. @default - the cluster's default class */
          readonly storageClassName?: string;
        }
      | {
          /** Snapshots in a directory on a node. */
          readonly kind: "hostPath";
          /** Absolute path of the snapshot directory on the node. */
          readonly path: string;
          /** Node the backup job runs on. @default - any node */
          readonly nodeName?: string;
        };
    /**
     * Image of the backup job's second step, which names, checksums and prunes the snapshots: it needs
     * `/bin/sh`, `date`, `mv`, `sha256sum`, `ls`, `sort`, `tail`, `wc` and `rm`. Mirror it for offline
     * installs.
     * @default "docker.io/library/busybox:1.37.0"
     */
    readonly toolsImage?: string;
  };
}
