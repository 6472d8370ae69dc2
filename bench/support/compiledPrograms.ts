/**
 * The etcd bench's two Pulumi programs (ours and the engine floor's) compiled to JavaScript once, so
 * that every `pulumi up` loads JavaScript as a user's does: the package ships compiled (bin/), while a
 * `typescript: true` project run from this repository makes ts-node transpile the library's ≈ 80 source
 * files at every start (≈ 1 s here), which no user pays. Both programs are compiled alike, so neither
 * side of a ratio gets the shortcut alone.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../devkit/testbed";

/** Entry points of the compiled programs. */
export interface CompiledPrograms {
  /** devkit/programs/etcd-hosts/index.ts as JavaScript. */
  readonly etcd: string;
  /** bench/support/etcdFloorProgram.ts as JavaScript. */
  readonly floor: string;
}

/** Compiles both programs (and what they import) under `dir` with the repository's compiler options. */
export function compileBenchPrograms(dir: string): CompiledPrograms {
  const sources = {
    etcd: "devkit/programs/etcd-hosts/index.ts",
    floor: "bench/support/etcdFloorProgram.ts",
  };
  const outDir = path.join(dir, "js");
  const tsconfig = path.join(dir, "tsconfig.json");
  const config = {
    extends: path.join(REPO_ROOT, "tsconfig.json"),
    compilerOptions: {
      outDir,
      rootDir: REPO_ROOT,
      declaration: false,
      sourceMap: false,
      types: ["node"],
      typeRoots: [path.join(REPO_ROOT, "node_modules", "@types")],
    },
    include: Object.values(sources).map((s) => path.join(REPO_ROOT, s)),
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(tsconfig, JSON.stringify(config));
  execFileSync(path.join(REPO_ROOT, "node_modules", ".bin", "tsc"), ["-p", tsconfig], { stdio: "inherit" });
  // compiled files resolve packages upwards from where they are
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(outDir, "node_modules"));
  const js = (source: string) => path.join(outDir, source.replace(/\.ts$/, ".js"));
  return { etcd: js(sources.etcd), floor: js(sources.floor) };
}
