/**
 * `npm run bench`: runs every benchmark in its own process, one after another, and prints their
 * output. Speed and memory targets live here, never in timed tests. Each bench says which real parts
 * it needs; a bench whose parts are missing prints why and is reported as not run.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const BENCHES = [
  { file: "etcd-hosts.ts", what: "etcd on hosts: bring-up and snapshot+restore vs plain scripts (ratios)" },
  { file: "sandbox.ts", what: "binary-mode sandbox: wall time of `pulumi up` and of a preview" },
];

const only = process.argv.slice(2);
let failed = 0;
for (const bench of BENCHES.filter((b) => only.length === 0 || only.some((o) => b.file.includes(o)))) {
  console.log(`\n=== bench ${bench.file}: ${bench.what}`);
  if (!existsSync(join(__dirname, bench.file))) {
    console.log(`=== bench ${bench.file}: NOT RUN (not in this checkout)`);
    continue;
  }
  const run = spawnSync(
    join(__dirname, "..", "node_modules", ".bin", "ts-node"),
    ["--transpile-only", "-P", join(__dirname, "..", "tsconfig.json"), join(__dirname, bench.file)],
    { stdio: "inherit" },
  );
  if (run.status !== 0) {
    failed++;
    console.log(`=== bench ${bench.file}: exit ${run.status}`);
  }
}
process.exitCode = failed ? 1 : 0;
