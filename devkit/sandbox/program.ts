/**
 * The local estate runs the stacks program as JavaScript, the way an adopting project runs the published
 * package (compiled into bin/): the engine then loads plain modules instead of starting ts-node and
 * compiling the whole library on every `preview`, `up` and `destroy`. The sources are transpiled here,
 * file by file, only those changed since the last run (no type-check, as with ts-node --transpile-only
 * before: `tsc` checks the code in CI), with the repository's compiler options.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { parse, stringify } from "yaml";
import { REPO_ROOT } from "../testbed";

/**
 * What the stacks program is made of, relative to the repository root: its TypeScript, and the JSON it
 * imports (the stack-file schema the program checks its settings against).
 */
const PROGRAM_SOURCES = ["index.ts", "lib", "components", "stacks", "schemas"] as const;

/** The program's entry point inside the transpiled tree. */
const ENTRY = "stacks/index.js";

/** The manifest of a transpiled tree: source path → sha256 of the source it was transpiled from. */
const MANIFEST = ".sources.json";

/** Every TypeScript source of the program (relative paths, sorted), tests and declarations left out. */
export function programSources(root: string = REPO_ROOT): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    const full = path.join(root, rel);
    if (fs.statSync(full).isDirectory()) {
      for (const entry of fs.readdirSync(full)) walk(path.join(rel, entry));
    } else if (
      (rel.endsWith(".ts") && !rel.endsWith(".d.ts") && !rel.endsWith(".test.ts")) ||
      rel.endsWith(".json")
    ) {
      found.push(rel);
    }
  };
  PROGRAM_SOURCES.forEach(walk);
  return found.sort();
}

/** The repository's compiler options (tsconfig.json) for emitting CommonJS next to nothing else. */
function compilerOptions(root: string): ts.CompilerOptions {
  const file = path.join(root, "tsconfig.json");
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) throw new Error(`cannot read ${file}: ${String(read.error.messageText)}`);
  const { options } = ts.convertCompilerOptionsFromJson(read.config.compilerOptions, root);
  return { ...options, sourceMap: true, declaration: false, noEmit: false, outDir: undefined };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Brings the transpiled program in `outDir` up to date with the sources under `root`: changed and new
 * files are transpiled (with a source map beside each), files whose source is gone are removed, the
 * rest is left alone. `outDir/node_modules` links the repository's, so the program finds its packages.
 * Returns the entry point's path relative to `outDir`.
 */
export function transpileStacksProgram(outDir: string, root: string = REPO_ROOT): string {
  transpileSources(outDir, programSources(root), root);
  return ENTRY;
}

/**
 * Brings `outDir` up to date with `sources` (paths relative to `root`), as transpileStacksProgram does
 * for the stacks program: only changed files transpiled (JSON copied), vanished ones removed,
 * node_modules linked.
 */
export function transpileSources(outDir: string, sources: readonly string[], root: string = REPO_ROOT): void {
  fs.mkdirSync(outDir, { recursive: true });
  const manifestFile = path.join(outDir, MANIFEST);
  const before: Record<string, string> = fs.existsSync(manifestFile)
    ? JSON.parse(fs.readFileSync(manifestFile, "utf8"))
    : {};
  const after: Record<string, string> = {};
  let options: ts.CompilerOptions | undefined;
  const output = (rel: string) => path.join(outDir, rel.replace(/\.ts$/, ".js"));
  for (const rel of sources) {
    const source = fs.readFileSync(path.join(root, rel), "utf8");
    const hash = sha256(source);
    after[rel] = hash;
    if (before[rel] === hash && fs.existsSync(output(rel))) continue;
    fs.mkdirSync(path.dirname(output(rel)), { recursive: true });
    if (rel.endsWith(".json")) {
      // imported JSON is loaded as it is, next to the code that requires it
      fs.writeFileSync(output(rel), source);
      continue;
    }
    options ??= compilerOptions(root);
    const emitted = ts.transpileModule(source, {
      compilerOptions: options,
      fileName: path.join(root, rel),
      reportDiagnostics: false,
    });
    fs.writeFileSync(output(rel), emitted.outputText);
    if (emitted.sourceMapText) fs.writeFileSync(`${output(rel)}.map`, emitted.sourceMapText);
  }
  for (const rel of Object.keys(before).filter((r) => !(r in after))) {
    fs.rmSync(output(rel), { force: true });
    fs.rmSync(`${output(rel)}.map`, { force: true });
  }
  fs.writeFileSync(manifestFile, JSON.stringify(after));
  const modules = path.join(outDir, "node_modules");
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(root, "node_modules"), modules);
}

/**
 * The project file of a copy that runs the transpiled program: the repository's Pulumi.yaml with `main`
 * pointing at `entry` (relative to the project directory) and the runtime told it is JavaScript.
 */
export function projectFileForJavaScript(projectYaml: string, entry: string): string {
  const project = parse(projectYaml) as Record<string, any>;
  const runtime =
    typeof project.runtime === "string" ? { name: project.runtime } : { ...(project.runtime ?? {}) };
  runtime.options = { ...(runtime.options ?? {}), typescript: false };
  return stringify({ ...project, runtime, main: entry });
}
