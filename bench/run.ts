/**
 * `npm run bench [name ...]`: runs every benchmark (or those whose file name contains a given name) in
 * its own process, one after another, passing their output through. Each bench prints its figures
 * (bench/support/figures.ts); this collects them into bench/results/latest.json (not committed) and
 * rewrites the table in docs/performance.md, keeping the rows of benches not run this time.
 * Speed and memory targets live here, never in timed tests. Exit code 1 when a bench fails to run;
 * a target not met is reported in the table and the summary, not as a failure.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BENCHES } from "./benches";
import { describeFigure, parseFigures } from "./support/figures";
import { DatedFigure, figuresInDocument, mergeFigures, withTable } from "./support/table";

const ROOT = path.join(__dirname, "..");
const PERFORMANCE_DOC = path.join(ROOT, "docs", "performance.md");
const RESULTS = path.join(__dirname, "results", "latest.json");

/** Runs one bench, echoing its output, and returns its exit code and stdout. */
function runBench(file: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      path.join(ROOT, "node_modules", ".bin", "ts-node"),
      ["--transpile-only", "-P", path.join(ROOT, "tsconfig.json"), path.join(__dirname, file)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      process.stdout.write(chunk);
    });
    child.on("close", (code) => resolve({ code: code ?? 1, stdout }));
  });
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const selected = BENCHES.filter((b) => only.length === 0 || only.some((o) => b.file.includes(o)));
  const date = new Date().toISOString().slice(0, 10);
  const measured: DatedFigure[] = [];
  const failed: string[] = [];
  for (const bench of selected) {
    console.log(`\n=== bench ${bench.file}: ${bench.what}`);
    const started = Date.now();
    const { code, stdout } = await runBench(bench.file);
    measured.push(...parseFigures(stdout).map((f) => ({ ...f, date })));
    console.log(
      `=== bench ${bench.file}: exit ${code} after ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    if (code !== 0) failed.push(bench.file);
  }

  fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
  fs.writeFileSync(RESULTS, `${JSON.stringify({ date, failed, figures: measured }, null, 2)}\n`);
  if (measured.length > 0) {
    const doc = fs.readFileSync(PERFORMANCE_DOC, "utf8");
    fs.writeFileSync(PERFORMANCE_DOC, withTable(doc, mergeFigures(figuresInDocument(doc), measured)));
  }

  console.log(
    `\n=== summary (${measured.length} figures; ${path.relative(ROOT, RESULTS)}, docs/performance.md)`,
  );
  for (const f of measured) console.log(describeFigure(f));
  if (failed.length) console.log(`benches that did not finish: ${failed.join(", ")}`);
  process.exitCode = failed.length ? 1 : 0;
}

void main();
