/**
 * `npm run lint:scripts`: renders every host script our generators produce (all variants: systemd and
 * supervisor runners, URL/path artifacts, backup, restore) and runs shellcheck on each as bash, and the
 * scripts our pods run (etcd's entrypoint, membership and backup jobs) as POSIX sh — the etcd image's
 * shell may be any. Exits non-zero on any finding or if shellcheck is missing.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MEMBERSHIP_SCRIPT,
  MEMBER_ENTRYPOINT_SCRIPT,
  SNAPSHOT_SCRIPT,
  STORE_SCRIPT,
} from "../lib/manifests/etcd";
import { scriptsOf, variantPlans } from "../devkit/hosts/scriptFixtures";

/** Scripts run by `/bin/sh -c` in pods. */
const POD_SCRIPTS = {
  "etcd-member-entrypoint": MEMBER_ENTRYPOINT_SCRIPT,
  "etcd-membership-job": MEMBERSHIP_SCRIPT,
  "etcd-backup-snapshot": SNAPSHOT_SCRIPT,
  "etcd-backup-store": STORE_SCRIPT,
};

const dir = mkdtempSync(join(tmpdir(), "pulumi-karmada-scripts-"));
try {
  const files: string[] = [];
  for (const { label, plan } of variantPlans()) {
    for (const { label: step, script } of scriptsOf(plan)) {
      const file = join(dir, `${files.length}-${`${label} ${step}`.replace(/[^a-z0-9]+/gi, "-")}.sh`);
      writeFileSync(file, script);
      files.push(file);
    }
  }
  execFileSync("shellcheck", ["--severity=style", "--shell=bash", ...files], { stdio: "inherit" });
  const podFiles = Object.entries(POD_SCRIPTS).map(([label, script]) => {
    const file = join(dir, `pod-${label}.sh`);
    writeFileSync(file, script);
    return file;
  });
  execFileSync("shellcheck", ["--severity=style", "--shell=sh", ...podFiles], { stdio: "inherit" });
  console.log(`shellcheck: ${files.length} host scripts and ${podFiles.length} pod scripts clean`);
} catch (error) {
  console.error(`shellcheck of generated scripts failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
