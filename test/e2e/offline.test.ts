/**
 * Offline drill: the whole binary estate installs with no network at all. The test makes a network
 * namespace that has only loopback (`unshare --net`, then `ip link set lo up`) and runs the drill program
 * (test/e2e/drills/offline-estate.ts) inside it: the local estate of `npm start` brought up by the real
 * engine, its binaries from the estate's loopback mirror checked by sha256, the CRD bundle from a local
 * path, every member Ready. A single connection outside loopback would fail the `up`: there is no route.
 * (The containerized side — every image from the registry setting — is test/unit/stacks/offline-images.)
 */
import * as path from "path";
import { DRILL_LINE, OfflineDrillReport } from "./drills/offline-report";
import { e2eTier, LOCAL_ESTATE_NEEDS } from "../support/engine";
import { runProcess } from "../support/hosts/driver";
import { REPO_ROOT } from "../support/kube/binaries";

jest.setTimeout(30 * 60_000);

const tier = e2eTier(
  "offline: the binary estate in a network namespace with only loopback (test/e2e/offline.test.ts)",
  LOCAL_ESTATE_NEEDS,
);

/** Longest the drill may take (its own `up` and teardown): it is killed after that. */
const DRILL_TIMEOUT_MS = 25 * 60_000;

/** Runs the drill program in a new network namespace, collecting its output and exit code. */
function runOffline() {
  const program = path.join(__dirname, "drills", "offline-estate.ts");
  const tsNode = path.join(REPO_ROOT, "node_modules", ".bin", "ts-node");
  const inner = `ip link set lo up && exec ${tsNode} --transpile-only -P ${path.join(REPO_ROOT, "tsconfig.json")} ${program}`;
  return runProcess("unshare", ["--net", "--", "bash", "-c", inner], "", DRILL_TIMEOUT_MS);
}

tier.describe("offline install of the binary estate", () => {
  let report: OfflineDrillReport;

  beforeAll(async () => {
    const run = await runOffline();
    const line = run.stdout.split("\n").find((l) => l.startsWith(DRILL_LINE));
    if (run.code !== 0 || !line)
      throw new Error(
        `the offline drill failed (exit ${run.code}):\n${run.stderr.slice(-4000)}\n${run.stdout.slice(-4000)}`,
      );
    report = JSON.parse(line.slice(DRILL_LINE.length)) as OfflineDrillReport;
    console.log(`offline up: ${report.created} resources in ${report.upSeconds.toFixed(0)} s`);
  });

  test("the namespace has no interface but loopback", () => {
    expect(report.interfaces).toEqual([]);
  });

  test("every binary comes from the loopback mirror with a sha256; the CRD bundle from a local path", () => {
    expect(report.artifacts.length).toBeGreaterThan(0);
    for (const a of report.artifacts) {
      expect(new URL(a.url).hostname).toMatch(/^127\./);
      expect(a.sha256).toBe(true);
    }
    expect(report.crds).toEqual({ kind: "path", path: expect.stringMatching(/^\//) });
  });

  test("`up` succeeds and every member cluster becomes Ready", () => {
    expect(report.upResult).toBe("succeeded");
    expect(report.created).toBeGreaterThan(100);
    expect(report.readyClusters).toEqual(["member1", "member2", "member3"]);
  });
});
