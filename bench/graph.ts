/**
 * Bench: graph construction under Pulumi mocks — one control plane (containerized, external etcd) plus
 * N push-mode members — against a bare Pulumi program that registers exactly the same resources (same
 * types through the same SDK classes, names, parents, providers, inputs and dependency edges; recorded
 * from one run of ours, see bench/support/graphReplay.ts). Every measurement runs in its own fresh
 * process (bench/support/graphChild.ts), bare and ours interleaved, BENCH_ROUNDS (default 3) runs each;
 * figures are medians:
 *   graph.n<N>          time ratio (≤ 1.5 at N = 1, the control plane's fixed part; ≤ 1.2 above)
 *   graph.memory.n<N>   peak RSS ratio (≤ 1.1)
 *   graph.linearity     per-member cost at 1000 vs at 100, fixed part subtracted (≤ 1.1)
 * Run: npx ts-node --transpile-only -P tsconfig.json bench/graph.ts
 * (BENCH_GRAPH_MEMBERS=1,10 measures other sizes while developing.)
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { figureOf, median, reportFigure } from "./support/figures";
import { benchCrdSource, describeCrdSource } from "./support/graphEstate";
import { GraphRun, runGraphChild } from "./support/graphRuns";
import { testbedEnv } from "../devkit/testbed";

const BENCH = "graph";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = (process.env.BENCH_GRAPH_MEMBERS ?? "1,10,100,1000").split(",").map(Number);
const BARE = "bare Pulumi, same resources";

/** Both programs' runs at one size. */
interface SizeRuns {
  readonly ours: GraphRun[];
  readonly bare: GraphRun[];
}

/** Records the graph once, then measures bare and ours in alternating order, one process per run. */
async function measure(members: number, shapeFile: string): Promise<SizeRuns> {
  const recorded = await runGraphChild(["record", String(members), shapeFile]);
  const runs: SizeRuns = { ours: [], bare: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (["bare", "ours"] as const) : (["ours", "bare"] as const);
    for (const variant of order) {
      const run = await runGraphChild([variant, String(members), shapeFile]);
      if (run.registrations !== recorded.registrations || run.reads !== recorded.reads) {
        throw new Error(
          `${variant} at N=${members} made ${run.registrations} registrations and ${run.reads} reads, ` +
            `the recorded graph ${recorded.registrations} and ${recorded.reads}`,
        );
      }
      runs[variant].push(run);
      console.log(
        `  N=${members} ${variant}: ${(run.ms / 1000).toFixed(2)} s (CPU ${(run.cpuMs / 1000).toFixed(2)} s), ${run.rssMiB.toFixed(0)} MiB, ` +
          `${run.registrations} resources`,
      );
    }
  }
  return runs;
}

/** Per-member cost of each round at `n` members: (runs(n) − runs(1)) / (n − 1), ours or the bare program's. */
function perMember(byCount: Map<number, SizeRuns>, n: number, variant: keyof SizeRuns = "ours"): number[] {
  const one = byCount.get(1)![variant];
  return byCount.get(n)![variant].map((run, i) => (run.ms - one[i].ms) / (n - 1));
}

function report(byCount: Map<number, SizeRuns>): void {
  for (const [n, runs] of byCount) {
    const resources = runs.ours[0].registrations;
    reportFigure(
      figureOf({
        bench: BENCH,
        id: `graph.n${n}`,
        figure: `graph construction, control plane + ${n} push member${n === 1 ? "" : "s"} (${resources} resources)`,
        ours: runs.ours.map((r) => r.ms),
        baselineLabel: BARE,
        baseline: runs.bare.map((r) => r.ms),
        target: { kind: "ratio", max: n === 1 ? 1.5 : 1.2 },
        note: "under mocks, each run a fresh process; stack traces not source-mapped (the SDK takes one per promise, the same for both)",
      }),
    );
    reportFigure(
      figureOf({
        bench: BENCH,
        id: `graph.memory.n${n}`,
        figure: `peak RSS, control plane + ${n} push member${n === 1 ? "" : "s"}`,
        unit: "MiB",
        ours: runs.ours.map((r) => r.rssMiB),
        baselineLabel: BARE,
        baseline: runs.bare.map((r) => r.rssMiB),
        target: { kind: "ratio", max: 1.1 },
        note: "both processes load the same modules",
      }),
    );
  }
  if (byCount.has(1) && byCount.has(100) && byCount.has(1000)) {
    // the same ratio for the bare program: how linear the SDK itself is on this machine today
    const bareRatio = median(perMember(byCount, 1000, "bare")) / median(perMember(byCount, 100, "bare"));
    reportFigure(
      figureOf({
        bench: BENCH,
        id: "graph.linearity",
        figure: "per-member cost at 1000 members vs at 100 (control plane's fixed part subtracted)",
        ours: perMember(byCount, 1000),
        baselineLabel: "per-member cost at 100",
        baseline: perMember(byCount, 100),
        target: { kind: "ratio", max: 1.1 },
        note: `the bare program's own ratio in the same runs: ${bareRatio.toFixed(2)}×`,
      }),
    );
  }
}

async function main(): Promise<void> {
  // the release's CRD bundle, as users have it: the children inherit its path (benchCrdSource)
  process.env.TESTBED_KARMADA_CRDS ??= testbedEnv().env.TESTBED_KARMADA_CRDS;
  console.log(`CRD bundle: ${describeCrdSource(benchCrdSource())}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-graph-"));
  try {
    const byCount = new Map<number, SizeRuns>();
    for (const n of SIZES) {
      console.log(`graph: control plane + ${n} push members, ${ROUNDS} rounds`);
      byCount.set(n, await measure(n, path.join(dir, `graph-${n}.json`)));
    }
    report(byCount);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
