/**
 * Running one graph-bench measurement in a fresh process (bench/support/graphChild.ts) and reading its
 * result back.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";

/** Prefix of the line a measurement prints its result on. */
export const GRAPH_RUN_PREFIX = "GRAPH_RUN ";

/** One measurement. */
export interface GraphRun {
  /** Graph construction: first resource to last answered registration. */
  readonly ms: number;
  /** CPU time (user + system, all threads) in the same span: steadier than wall time on a busy machine. */
  readonly cpuMs: number;
  /** Peak resident set size of the process. */
  readonly rssMiB: number;
  /** Registrations and reads the mock monitor answered. */
  readonly registrations: number;
  readonly reads: number;
}

const ROOT = path.join(__dirname, "..", "..");

/** Runs graphChild.ts with `args` in a new ts-node process and returns its `GRAPH_RUN` result. */
export function runGraphChild(args: readonly string[]): Promise<GraphRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      path.join(ROOT, "node_modules", ".bin", "ts-node"),
      [
        "--transpile-only",
        "-P",
        path.join(ROOT, "tsconfig.json"),
        path.join(__dirname, "graphChild.ts"),
        ...args,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const line = stdout.split("\n").find((l) => l.startsWith(GRAPH_RUN_PREFIX));
      if (code !== 0 || !line) {
        reject(new Error(`graphChild ${args.join(" ")} exited ${code}${line ? "" : " without a result"}`));
        return;
      }
      resolve(JSON.parse(line.slice(GRAPH_RUN_PREFIX.length)) as GraphRun);
    });
  });
}
