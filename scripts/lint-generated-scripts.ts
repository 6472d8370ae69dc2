/**
 * `npm run lint:scripts`: renders every host script our generators produce (all variants: systemd and
 * supervisor runners, URL/path artifacts, backup, restore) and runs shellcheck on each. Exits non-zero on
 * any finding or if shellcheck is missing.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptsOf, variantPlans } from "../test/unit/hosts/fixtures";

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
  console.log(`shellcheck: ${files.length} generated scripts clean`);
} catch (error) {
  console.error(`shellcheck of generated scripts failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
