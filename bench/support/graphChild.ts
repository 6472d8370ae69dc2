/**
 * One measurement of the graph bench, in its own process (bench/graph.ts starts one per run):
 *   graphChild.ts record <members> <shape.json>  — runs our estate, writes every request it made;
 *   graphChild.ts ours <members>                 — times our estate's graph construction;
 *   graphChild.ts bare <members> <shape.json>    — times the bare program registering the same graph.
 * Both timed variants load the same modules before the clock starts, so the figures compare graph
 * construction, not code size. Prints one `GRAPH_RUN <json>` line: milliseconds from the first
 * resource to the last answered registration, peak RSS (MiB) and what the monitor answered.
 */
import * as fs from "node:fs";
import { externalEtcdCredentials } from "../../devkit/pki";
import { timed } from "./figures";
import { benchCrdSource, buildBenchEstate } from "./graphEstate";
import { installRecordingMocks } from "../../devkit/mocks";
import { graphSettled, RecordedRequest, replayRequest } from "./graphMocks";
import { replayGraph } from "./graphReplay";
import { GRAPH_RUN_PREFIX, GraphRun } from "./graphRuns";

async function main(): Promise<void> {
  const [variant, membersArg, shapeFile] = process.argv.slice(2);
  const members = Number(membersArg);
  if (!["record", "ours", "bare"].includes(variant) || !Number.isInteger(members) || members < 0) {
    throw new Error(
      `usage: graphChild.ts record|ours|bare <members> [shape.json] (got ${process.argv.slice(2)})`,
    );
  }
  // the bare program's source: read before the clock, like a program's literals
  let shape: RecordedRequest[] | undefined =
    variant === "bare" ? JSON.parse(fs.readFileSync(shapeFile, "utf8")) : undefined;
  // The SDK records a stack trace per promise; ts-node source-maps every one of them, a cost per
  // resource that is the same for both programs and would hide the components' own. V8's format.
  Object.assign(Error, { prepareStackTrace: undefined });
  // the outputs a real estate's controllers fill in (tokens, the kube-system UID) are read back
  const { counts, calls } = installRecordingMocks({ record: variant === "record", controllers: true });
  const crds = benchCrdSource();
  const etcdCredentials = variant === "bare" ? undefined : externalEtcdCredentials();
  const cpuBefore = process.cpuUsage();
  const { ms } = await timed(async () => {
    if (shape) replayGraph(shape);
    else buildBenchEstate(members, crds, etcdCredentials!);
    shape = undefined; // what the bare program keeps is what its resources keep
    await graphSettled();
  });
  const cpu = process.cpuUsage(cpuBefore);
  if (variant === "record") fs.writeFileSync(shapeFile, JSON.stringify(calls.map(replayRequest)));
  const run: GraphRun = {
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssMiB: process.resourceUsage().maxRSS / 1024,
    registrations: counts.registrations,
    reads: counts.reads,
  };
  console.log(`${GRAPH_RUN_PREFIX}${JSON.stringify(run)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
