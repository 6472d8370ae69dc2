import { DEFAULT_KARMADA_VERSION, findRelease, resolveImage } from "../catalog";
import { ResourceRequirements } from "../controlplane/settings";
import { validateDns1123Label, validateDns1123Subdomain } from "../validation/dns";
import { validateCronSchedule } from "../validation/cron";
import { ConfigError, ErrorCollector, check, checkAll, show } from "../validation/errors";
import { validateImageReference } from "../validation/image";
import { requireMap } from "../validation/maps";
import { entryField, validateAnnotations, validateLabels } from "../validation/labels";
import { validateInteger } from "../validation/numbers";
import { checkNotOwned } from "../validation/owned-flags";
import { parseQuantity, validateQuantity, validateResources } from "../validation/quantity";
import { ETCD_OWNED_FLAGS } from "./flags-owned";

/** Member counts of an in-cluster etcd: odd, so a quorum survives ⌊n/2⌋ lost members. */
export const ETCD_IN_CLUSTER_REPLICAS = [1, 3, 5] as const;
/** An allowed member count. */
export type EtcdReplicas = (typeof ETCD_IN_CLUSTER_REPLICAS)[number];

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
  readonly imagePullPolicy: "Always" | "IfNotPresent" | "Never";
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

/** What a user gives for an in-cluster etcd; every field but `namespace` has a default. */
export interface EtcdInClusterArgs {
  /** Name of the StatefulSet and headless Service (DNS-1035 label, at most 45 characters). @default "etcd" */
  readonly name?: string;
  /** Host-cluster namespace of every etcd object (in `EtcdClusterArgs.inCluster`: "karmada-system"). */
  readonly namespace: string;
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

/** Defaults of {@link EtcdInClusterArgs}, in one place. */
export const ETCD_DEFAULTS = {
  name: "etcd",
  clusterDomain: "cluster.local",
  pvcSize: "8Gi",
  quotaBackendBytes: "8Gi",
  priorityClassName: "system-node-critical",
  resources: { requests: { cpu: "100m", memory: "256Mi" } },
  backupSchedule: "0 */6 * * *",
  backupRetain: 7,
  backupSize: "20Gi",
  toolsImage: resolveImage("etcd-backup-tools", findRelease(DEFAULT_KARMADA_VERSION)),
} as const;

/**
 * Longest name: `<name>-backup` must leave room for the 11 characters Kubernetes appends to Job names
 * (and `<name>` for the StatefulSet's 11-character revision hash label).
 */
export const ETCD_NAME_MAX = 45;

const PULL_POLICIES = ["Always", "IfNotPresent", "Never"] as const;

/** Applies defaults and validates; every problem is a ConfigError naming `<field>.<path>`. */
export function resolveEtcdInClusterSettings(args: EtcdInClusterArgs, field = "etcd"): EtcdInClusterSettings {
  // the sections defaults are merged into must be maps, or the merge itself would fail
  checkAll(
    () =>
      args.storage === undefined ||
      requireMap(`${field}.storage`, args.storage, '{ kind: "pvc", size: "8Gi" }'),
    () =>
      args.backup === undefined || requireMap(`${field}.backup`, args.backup, "{ schedule, retain, target }"),
    () =>
      args.backup?.target === undefined ||
      requireMap(`${field}.backup.target`, args.backup.target, '{ kind: "pvc", size: "8Gi" }'),
  );
  const storage = args.storage ?? {};
  const backup = args.backup;
  const target = backup?.target ?? {};
  const settings = {
    name: args.name ?? ETCD_DEFAULTS.name,
    namespace: args.namespace,
    clusterDomain: args.clusterDomain ?? ETCD_DEFAULTS.clusterDomain,
    replicas: (args.replicas ?? 1) as EtcdReplicas,
    image: args.image ?? resolveImage("etcd", findRelease(DEFAULT_KARMADA_VERSION)),
    imagePullPolicy: (args.imagePullPolicy ?? "IfNotPresent") as EtcdInClusterSettings["imagePullPolicy"],
    storage: (storage.kind === undefined || storage.kind === "pvc"
      ? { ...storage, kind: "pvc", size: ("size" in storage && storage.size) || ETCD_DEFAULTS.pvcSize }
      : storage) as EtcdStorage,
    resources: args.resources ?? ETCD_DEFAULTS.resources,
    labels: args.labels ?? {},
    annotations: args.annotations ?? {},
    priorityClassName: args.priorityClassName ?? ETCD_DEFAULTS.priorityClassName,
    extraArgs: args.extraArgs ?? {},
    quotaBackendBytes: quotaBytes(
      `${field}.quotaBackendBytes`,
      args.quotaBackendBytes ?? ETCD_DEFAULTS.quotaBackendBytes,
    ),
    awaitWorkloads: args.awaitWorkloads ?? true,
    deleteDataOnDestroy: args.deleteDataOnDestroy ?? false,
    backup: backup && {
      schedule: backup.schedule ?? ETCD_DEFAULTS.backupSchedule,
      retain: backup.retain ?? ETCD_DEFAULTS.backupRetain,
      target: (target.kind === undefined || target.kind === "pvc"
        ? { ...target, kind: "pvc", size: ("size" in target && target.size) || ETCD_DEFAULTS.backupSize }
        : target) as EtcdBackupTarget,
      toolsImage: backup.toolsImage ?? ETCD_DEFAULTS.toolsImage,
    },
  };
  return validateEtcdInClusterSettings(settings, field);
}

function quotaBytes(field: string, value: number | string): number {
  const bytes = typeof value === "string" ? parseQuantity(value) : value;
  if (bytes === undefined || !Number.isInteger(bytes) || bytes < 1) {
    throw new ConfigError(
      field,
      `${show(value)} is not a size in bytes`,
      'a positive integer or a quantity like "8Gi"',
    );
  }
  return bytes;
}

/** Validates resolved settings (pure); returns them. */
export function validateEtcdInClusterSettings(
  s: EtcdInClusterSettings,
  field = "etcd",
): EtcdInClusterSettings {
  const errors = new ErrorCollector();
  const run = (fn: () => unknown) => errors.attempt(fn);
  run(() => {
    validateDns1123Label(`${field}.name`, s.name);
    // it names Services too, whose names are DNS-1035 labels: a letter first
    check(
      /^[a-z]/.test(s.name),
      `${field}.name`,
      `${show(s.name)} does not start with a letter`,
      "a DNS-1035 label, e.g. etcd",
    );
    check(
      s.name.length <= ETCD_NAME_MAX,
      `${field}.name`,
      `${show(s.name)} is too long`,
      `at most ${ETCD_NAME_MAX} characters`,
    );
  });
  run(() => validateDns1123Label(`${field}.namespace`, s.namespace));
  run(() => validateDns1123Subdomain(`${field}.clusterDomain`, s.clusterDomain));
  run(() => validateReplicaCount(`${field}.replicas`, s.replicas));
  run(() => validateImageReference(`${field}.image`, s.image));
  run(() =>
    check(
      PULL_POLICIES.includes(s.imagePullPolicy),
      `${field}.imagePullPolicy`,
      `unknown policy ${show(s.imagePullPolicy)}`,
      PULL_POLICIES.join(", "),
    ),
  );
  run(() => validateStorage(`${field}.storage`, s.storage, s.replicas));
  run(() => validateResources(`${field}.resources`, s.resources));
  run(() => validateLabels(`${field}.labels`, s.labels));
  run(() => validateAnnotations(`${field}.annotations`, s.annotations));
  if (s.priorityClassName !== "")
    run(() => validateDns1123Subdomain(`${field}.priorityClassName`, s.priorityClassName));
  run(() => {
    check(
      typeof s.extraArgs === "object" && s.extraArgs !== null && !Array.isArray(s.extraArgs),
      `${field}.extraArgs`,
      `${show(s.extraArgs)} is not a map of flags`,
      '{ "flag-name": "value" }',
    );
    for (const [name, value] of Object.entries(s.extraArgs)) {
      run(() => {
        check(
          /^[a-z0-9][a-z0-9-.]*$/.test(name),
          entryField(`${field}.extraArgs`, name),
          `${show(name)} is not a flag name`,
          "the flag name without leading dashes, e.g. heartbeat-interval",
        );
        check(
          typeof value === "string",
          entryField(`${field}.extraArgs`, name),
          `${show(value)} is not a string`,
          "a string",
        );
      });
    }
    checkNotOwned(`${field}.extraArgs`, s.extraArgs, { name: "the EtcdCluster", flags: ETCD_OWNED_FLAGS });
  });
  run(() => quotaBytes(`${field}.quotaBackendBytes`, s.quotaBackendBytes));
  if (s.backup) run(() => validateBackup(`${field}.backup`, s.backup!));
  errors.throwIfAny();
  return s;
}

function validateReplicaCount(field: string, replicas: number): void {
  const allowed = ETCD_IN_CLUSTER_REPLICAS.join(", ");
  check(
    Number.isInteger(replicas) && replicas > 0,
    field,
    `${show(replicas)} is not a member count`,
    allowed,
  );
  check(
    replicas % 2 === 1,
    field,
    `an even member count (${replicas}) tolerates no more failures than ${replicas - 1} and splits votes`,
    allowed,
  );
  check(
    (ETCD_IN_CLUSTER_REPLICAS as readonly number[]).includes(replicas),
    field,
    `${replicas} members is more than an in-cluster etcd needs`,
    allowed,
  );
}

function validateStorage(field: string, storage: EtcdStorage, replicas: number): void {
  switch (storage.kind) {
    case "pvc":
      validatePositiveSize(`${field}.size`, storage.size);
      if (storage.storageClassName !== undefined)
        validateDns1123Subdomain(`${field}.storageClassName`, storage.storageClassName);
      return;
    case "emptyDir":
      return;
    case "hostPath":
      validateAbsolutePath(`${field}.path`, storage.path);
      // One node directory cannot hold several members, and a pod moved to another node finds no data.
      check(
        replicas === 1,
        `${field}.kind`,
        `hostPath storage holds a single member, but replicas is ${replicas}`,
        'replicas 1, or kind "pvc"',
      );
      return;
    default:
      throw new ConfigError(
        `${field}.kind`,
        `unknown storage kind ${show((storage as { kind: unknown }).kind)}`,
        "pvc, emptyDir, hostPath",
      );
  }
}

function validateBackup(field: string, backup: EtcdBackupSettings): void {
  validateCronSchedule(`${field}.schedule`, backup.schedule);
  validateInteger(`${field}.retain`, backup.retain, 1, 1000);
  validateImageReference(`${field}.toolsImage`, backup.toolsImage);
  const target = backup.target;
  if (target.kind === "pvc") {
    validatePositiveSize(`${field}.target.size`, target.size);
    if (target.existingClaim !== undefined)
      validateDns1123Subdomain(`${field}.target.existingClaim`, target.existingClaim);
    if (target.storageClassName !== undefined)
      validateDns1123Subdomain(`${field}.target.storageClassName`, target.storageClassName);
  } else if (target.kind === "hostPath") {
    validateAbsolutePath(`${field}.target.path`, target.path);
    if (target.nodeName !== undefined) validateDns1123Subdomain(`${field}.target.nodeName`, target.nodeName);
  } else {
    throw new ConfigError(
      `${field}.target.kind`,
      `unknown target kind ${show((target as { kind: unknown }).kind)}`,
      "pvc, hostPath",
    );
  }
}

function validatePositiveSize(field: string, size: string): void {
  check(validateQuantity(field, size) > 0, field, `${show(size)} is zero`, 'a positive size like "8Gi"');
}

function validateAbsolutePath(field: string, path: string): void {
  check(
    typeof path === "string" && /^\/[^\0]*$/.test(path) && path !== "/",
    field,
    `${show(path)} is not an absolute directory path`,
    'an absolute path like "/var/lib/etcd"',
  );
  check(!path.split("/").includes(".."), field, `${show(path)} contains ".."`, "a path without ..");
}
