import { Chart } from "cdk8s";
import { k8s } from "cdk8s-plus-33";
import { EtcdBackupSettings, EtcdInClusterSettings } from "../../etcd/settings";
import type { KubeObject } from "../../kube/object";
import { synthChart } from "../karmada/chart";
import { SKIP_AWAIT_ANNOTATION } from "../workloads/metadata";
import {
  containerSecurityContext,
  podSecurityContext,
  resourceRequirements,
  secretVolume,
} from "../workloads/pod";
import { ETCD_PKI_DIR, etcdctlEnv } from "./flags";
import { etcdJobPodLabels, etcdMetadata } from "./labels";
import { etcdObjectNames } from "./names";

/** Where the backup job mounts the backup volume (the scripts read it from `$BACKUP_DIR`). */
const BACKUP_DIR = "/backup";
/** Snapshot being written; renamed to its final name only after it passed the integrity check. */
const PARTIAL_SNAPSHOT = '"$BACKUP_DIR/.partial.db"';

/**
 * Step 1, in the etcd image (which has etcdctl, etcdutl and a bare shell, no coreutils): take a
 * snapshot from a ready member through the client Service, then check it reads back as a valid
 * database (`etcdutl snapshot status` fails on a damaged file). Connection settings come from the
 * `ETCDCTL_*` environment.
 */
export const SNAPSHOT_SCRIPT = [
  "set -eu",
  `etcdctl snapshot save ${PARTIAL_SNAPSHOT}`,
  `etcdutl snapshot status ${PARTIAL_SNAPSHOT} --write-out=table`,
].join("\n");

/**
 * Step 2, in the tools image: give the checked snapshot its timestamped name
 * (`<prefix>-YYYYMMDDTHHMMSSZ.db`, which sorts chronologically), write its sha256 next to it
 * (`<file>.sha256`, checkable with `sha256sum -c`), then delete all but the newest `$RETAIN`.
 */
export const STORE_SCRIPT = [
  "set -eu",
  'cd "$BACKUP_DIR"',
  'file="$PREFIX-$(date -u +%Y%m%dT%H%M%SZ).db"',
  `mv ${PARTIAL_SNAPSHOT} "$file"`,
  'sha256sum "$file" > "$file.sha256"',
  "# shellcheck disable=SC2012 # our own names (<prefix>-<timestamp>.db): ls is safe and sorts them",
  'ls -1 "$PREFIX"-*.db | sort -r | tail -n +$((RETAIN + 1)) | while read -r old; do',
  '  rm -f "$old" "$old.sha256"',
  "done",
  "# shellcheck disable=SC2012",
  'echo "saved $file; keeping $(ls -1 "$PREFIX"-*.db | wc -l) snapshot(s)"',
].join("\n");

/**
 * The backup of an in-cluster etcd: a CronJob taking `etcdctl` snapshots into the backup target, and
 * the PersistentVolumeClaim `<name>-backup` when the target is a claim of ours. Empty without
 * `settings.backup`. The claim is never awaited: with WaitForFirstConsumer storage it binds only when
 * the first job runs. Give it `retainOnDelete` in Pulumi so backups survive `pulumi destroy`.
 */
export function etcdBackupManifests(settings: EtcdInClusterSettings): KubeObject[] {
  const backup = settings.backup;
  if (!backup) return [];
  return synthChart(`${settings.name}-etcd-backup`, (chart) => addBackup(chart, settings, backup));
}

function addBackup(chart: Chart, settings: EtcdInClusterSettings, backup: EtcdBackupSettings): void {
  const names = etcdObjectNames(settings);
  const target = backup.target;
  if (target.kind === "pvc" && target.existingClaim === undefined) {
    const metadata = etcdMetadata(settings, names.backupClaim);
    new k8s.KubePersistentVolumeClaim(chart, "claim", {
      metadata: { ...metadata, annotations: { ...metadata.annotations, [SKIP_AWAIT_ANNOTATION]: "true" } },
      spec: {
        accessModes: ["ReadWriteOnce"],
        storageClassName: target.storageClassName,
        resources: { requests: { storage: k8s.Quantity.fromString(target.size) } },
      },
    });
  }
  const backupVolume: k8s.Volume =
    target.kind === "pvc"
      ? { name: "backup", persistentVolumeClaim: { claimName: target.existingClaim ?? names.backupClaim } }
      : { name: "backup", hostPath: { path: target.path, type: "DirectoryOrCreate" } };
  const mounts = [{ name: "backup", mountPath: BACKUP_DIR }];
  const backupDirEnv = { name: "BACKUP_DIR", value: BACKUP_DIR };

  new k8s.KubeCronJob(chart, "cronjob", {
    metadata: etcdMetadata(settings, names.backupCronJob),
    spec: {
      schedule: backup.schedule,
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 300,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: {
        spec: {
          backoffLimit: 2,
          template: {
            metadata: { labels: etcdJobPodLabels(settings, "backup") },
            spec: {
              restartPolicy: "Never",
              automountServiceAccountToken: false,
              enableServiceLinks: false,
              nodeName: target.kind === "hostPath" ? target.nodeName : undefined,
              // A hostPath target is root-owned like a hostPath data directory.
              securityContext: podSecurityContext({ root: target.kind === "hostPath" }),
              initContainers: [
                {
                  name: "snapshot",
                  image: settings.image,
                  imagePullPolicy: settings.imagePullPolicy,
                  command: ["/bin/sh", "-c", SNAPSHOT_SCRIPT],
                  env: [backupDirEnv, ...etcdctlEnv(settings)],
                  resources: resourceRequirements({ requests: { cpu: "50m", memory: "128Mi" } }),
                  securityContext: containerSecurityContext(),
                  volumeMounts: [...mounts, { name: "pki", mountPath: ETCD_PKI_DIR, readOnly: true }],
                },
              ],
              containers: [
                {
                  name: "store",
                  image: backup.toolsImage,
                  imagePullPolicy: settings.imagePullPolicy,
                  command: ["/bin/sh", "-c", STORE_SCRIPT],
                  env: [
                    backupDirEnv,
                    { name: "PREFIX", value: settings.name },
                    { name: "RETAIN", value: String(backup.retain) },
                  ],
                  resources: resourceRequirements({ requests: { cpu: "10m", memory: "16Mi" } }),
                  securityContext: containerSecurityContext(),
                  volumeMounts: mounts,
                },
              ],
              volumes: [secretVolume("pki", names.certSecret), backupVolume],
            },
          },
        },
      },
    },
  });
}
