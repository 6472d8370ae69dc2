/**
 * Tier guards for tests that need test-bed binaries. A tier that cannot run is never a silent pass: it
 * prints a loud banner and records the reason in `${TMPDIR:-/tmp}/pulumi-karmada-tiers.txt`, which
 * `.ci/run` prints in its summary.
 */
import { appendFileSync, existsSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

export const TESTBED_DIR = join(
  process.env.PULUMI_KARMADA_CACHE || join(homedir(), ".cache", "pulumi-karmada"),
  "testbed",
);
export const TIERS_FILE = join(process.env.TMPDIR || tmpdir(), "pulumi-karmada-tiers.txt");

/** True when the test-bed component directory (e.g. `kube-v1.35.2`) is completely built. */
export const testbedHas = (dir: string): boolean => existsSync(join(TESTBED_DIR, dir, ".done"));

/** Records a tier outcome line for the CI summary. */
export function recordTier(tier: string, outcome: string): void {
  appendFileSync(TIERS_FILE, `${tier}: ${outcome}\n`);
}

/**
 * `describe` when every required test-bed directory is built; otherwise a loud `TIER NOT RUN` and a
 * skipped block.
 */
export function describeWithTestbed(tier: string, required: string[], body: () => void): void {
  const missing = required.filter((dir) => !testbedHas(dir));
  if (missing.length === 0) {
    recordTier(tier, "ran");
    describe(tier, body);
    return;
  }
  const reason = `E2E TIER NOT RUN: ${tier} (test bed missing ${missing.join(", ")} in ${TESTBED_DIR}; run scripts/testbed/build.sh)`;
  console.warn(`\n${"!".repeat(reason.length)}\n${reason}\n${"!".repeat(reason.length)}\n`);
  recordTier(tier, `NOT RUN — missing ${missing.join(", ")}`);
  describe.skip(tier, body);
}
