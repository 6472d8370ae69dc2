import { validateDns1123Label, validateDns1123Subdomain } from "../validation/dns";
import { validateCronSchedule } from "../validation/cron";
import { ConfigError, ErrorCollector, check, show } from "../validation/errors";
import { validateImageReference } from "../validation/image";
import { entryField, validateAnnotations, validateLabels } from "../validation/labels";
import { validateInteger } from "../validation/numbers";
import { checkNotOwned } from "../validation/owned-flags";
import { parseQuantity, validateQuantity, validateResources } from "../validation/quantity";
import { ETCD_IN_CLUSTER_REPLICAS, IMAGE_PULL_POLICIES } from "./config";
import { ETCD_OWNED_FLAGS } from "./flags-owned";
import { EtcdBackupSettings, EtcdInClusterSettings, EtcdStorage } from "./settings";

/**
 * Longest name: `<name>-backup` must leave room for the 11 characters Kubernetes appends to Job names
 * (and `<name>` for the StatefulSet's 11-character revision hash label).
 */
const ETCD_NAME_MAX = 45;

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
      IMAGE_PULL_POLICIES.includes(s.imagePullPolicy),
      `${field}.imagePullPolicy`,
      `unknown policy ${show(s.imagePullPolicy)}`,
      IMAGE_PULL_POLICIES.join(", "),
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

/** Bytes of a size given as a number or a quantity such as "8Gi"; a ConfigError naming `field` otherwise. */
export function quotaBytes(field: string, value: number | string): number {
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
