/**
 * Runs `pulumi preview --json` for a stack (or reads a saved one), prints a Markdown summary per top-level
 * component (creates / updates / replaces / deletes, replaced resources with the properties forcing it)
 * and writes the preview JSON and the Markdown to files, for CI to attach or post on a pull request.
 *
 *   npm run preview:summary -- --stack dev
 *   npm run preview:summary -- --from out/preview-dev.json
 *
 * Exits 1 when the preview itself failed (the summary, with the errors, is still printed), 2 on bad usage.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { SUMMARY_USAGE, SummaryArgs, parseSummaryArgs } from "../lib/preview/args";
import { parsePreviewDigest } from "../lib/preview/digest";
import { renderSummaryMarkdown } from "../lib/preview/markdown";
import { summarizePreview } from "../lib/preview/summary";
import { ConfigError } from "../lib/validation/errors";

/** Runs the preview; returns its JSON text and whether pulumi succeeded. */
function runPreview(args: SummaryArgs): { text: string; ok: boolean } {
  const command = ["preview", "--json", "--show-sames", "--non-interactive", "--stack", args.stack!];
  if (args.configFile) command.push("--config-file", args.configFile);
  const result = spawnSync("pulumi", command, {
    cwd: args.cwd,
    encoding: "utf8",
    // stdout is the JSON document; progress and errors go to stderr, which stays visible
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 30,
  });
  if (result.error) throw new Error(`cannot run pulumi: ${result.error.message}`);
  return { text: result.stdout, ok: result.status === 0 };
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, text);
}

function main(argv: readonly string[]): number {
  let args: SummaryArgs;
  try {
    args = parseSummaryArgs(argv);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`${e.message}\n${SUMMARY_USAGE}`);
    return 2;
  }
  const { text, ok } = args.from ? { text: fs.readFileSync(args.from, "utf8"), ok: true } : runPreview(args);
  if (!ok && text.trim() === "") {
    console.error("pulumi preview failed before producing JSON (see the errors above)");
    return 1;
  }
  if (args.jsonOut && !args.from) write(args.jsonOut, text);
  const markdown = renderSummaryMarkdown(summarizePreview(parsePreviewDigest(text)), { title: args.title });
  if (args.markdownOut) write(args.markdownOut, markdown);
  process.stdout.write(markdown);
  if (!ok) console.error("pulumi preview failed (see the errors above and in the summary)");
  return ok ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
