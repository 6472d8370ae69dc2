/**
 * Generates the diagrams of docs/diagrams.md: writes each DOT source to docs/diagrams/<name>.dot and its
 * picture (`dot -Tsvg`) to docs/images/<name>.svg. The estate's graphs come from a real `pulumi preview`
 * of the local stack (preview.ts: the test bed's engine, no machines or clusters of the estate needed).
 *
 *   npm run diagrams                              # regenerate docs/diagrams/*.dot and docs/images/*.svg
 *   npm run diagrams -- --check                   # fail (exit 1) naming every stale file; writes nothing
 *   npm run diagrams -- --from-preview FILE       # use a saved `pulumi preview --json` instead (not with --check)
 *   npm run diagrams -- --record-preview FILE     # also save the preview's graph (the unit tests' fixture format)
 *
 * Exit codes: 0 done / current, 1 stale or failed, 2 bad usage.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parsePreviewDigest } from "../../lib/preview/digest";
import { REPO_ROOT } from "../../devkit/testbed";
import { Finding, checkReport, diagramFiles, dotFindings, svgFinding } from "./check";
import { diagramSources } from "./diagrams";
import { graphOnlyDigest } from "./estate";
import { graphvizVersion, renderSvg, svgRenderer } from "./graphviz";
import { previewLocalEstate } from "./preview";
import { readRepositorySources } from "./sources";

const USAGE = "usage: render.ts [--check] [--from-preview FILE] [--record-preview FILE]";

/** The command line. */
interface RenderArgs {
  readonly check: boolean;
  readonly fromPreview?: string;
  readonly recordPreview?: string;
}

/** Parses the arguments; throws a usage message naming the offending one. */
export function parseRenderArgs(argv: readonly string[]): RenderArgs {
  const args: { check: boolean; fromPreview?: string; recordPreview?: string } = { check: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new Error(`${flag} needs a file name`);
      return v;
    };
    if (flag === "--check") args.check = true;
    else if (flag === "--from-preview") args.fromPreview = value();
    else if (flag === "--record-preview") args.recordPreview = value();
    else
      throw new Error(`unknown argument ${JSON.stringify(flag)} (--check, --from-preview, --record-preview)`);
  }
  if (args.check && args.fromPreview)
    throw new Error("--check runs the real preview: it does not take --from-preview");
  return args;
}

/** Writes `file` (relative to `root`, or absolute), creating its directory. */
function write(root: string, file: string, text: string): void {
  const full = path.resolve(root, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, text);
}

const readCommitted = (file: string): string | undefined => {
  const full = path.join(REPO_ROOT, file);
  return fs.existsSync(full) ? fs.readFileSync(full, "utf8") : undefined;
};

/** Findings about the committed files, given the freshly generated DOT sources. */
function findings(dots: ReadonlyMap<string, string>): Finding[] {
  const localVersion = graphvizVersion();
  const generated = new Map([...dots].map(([name, dot]) => [diagramFiles(name).dot, dot]));
  const svgs = [...dots.keys()].map((name) => {
    const files = diagramFiles(name);
    const committed = readCommitted(files.svg);
    const committedDot = readCommitted(files.dot);
    return svgFinding({
      file: files.svg,
      committed,
      renderedBy: committed === undefined ? undefined : svgRenderer(committed),
      localVersion,
      rerendered: committedDot === undefined ? undefined : renderSvg(committedDot),
    });
  });
  return [...dotFindings(generated, readCommitted), ...svgs.filter((f): f is Finding => f !== undefined)];
}

async function main(argv: readonly string[]): Promise<number> {
  let args: RenderArgs;
  try {
    args = parseRenderArgs(argv);
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const started = Date.now();
  let previewJson: string;
  if (args.fromPreview) {
    previewJson = fs.readFileSync(args.fromPreview, "utf8");
  } else {
    console.error("[diagrams] pulumi preview of stack local (a loopback stand-in for the member clusters)");
    const run = await previewLocalEstate();
    console.error(`[diagrams] preview done in ${run.seconds}s`);
    previewJson = run.json;
  }
  if (args.recordPreview) {
    const graph = graphOnlyDigest(parsePreviewDigest(previewJson));
    write(process.cwd(), args.recordPreview, `${JSON.stringify(graph, null, 2)}\n`);
  }
  const dots = diagramSources({ sources: readRepositorySources(REPO_ROOT), previewJson });
  const outDir = args.check ? fs.mkdtempSync(path.join(os.tmpdir(), "pk-diagrams-check-")) : REPO_ROOT;
  for (const [name, dot] of dots) {
    const files = diagramFiles(name);
    write(outDir, files.dot, dot);
    write(outDir, files.svg, renderSvg(dot));
    if (!args.check) console.error(`[diagrams] wrote ${files.dot} and ${files.svg}`);
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  if (!args.check) {
    console.error(`[diagrams] done in ${seconds}s`);
    return 0;
  }
  const report = checkReport(findings(dots), outDir);
  console.error(report.text.replace(/^/gm, "[diagrams] "));
  console.error(`[diagrams] check took ${seconds}s`);
  if (report.ok) fs.rmSync(outDir, { recursive: true, force: true });
  return report.ok ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e) => {
      console.error(`[diagrams] ${(e as Error).message}`);
      process.exitCode = 1;
    },
  );
}
