/**
 * Reads the repository's TypeScript program files from disk for the import graph: the mapped ones
 * (index.ts, stacks/, components/, lib/, provider/) and everything else that may import them (scripts/, test/ …).
 */
import * as fs from "fs";
import * as path from "path";
import { byText } from "./dot";
import { SourceFile } from "./modules";

/** Directories never read: dependencies, build output, tool state. */
const SKIPPED = new Set(["node_modules", "bin"]);

/** Whether a file is program code (not a declaration file; tests count: they import the map too). */
const isProgramCode = (file: string) => file.endsWith(".ts") && !file.endsWith(".d.ts");

/** Repository-relative POSIX paths of the program files below `dir` ("" for the root). */
function listFiles(repoRoot: string, dir: string): string[] {
  return fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((e) => {
    const file = dir === "" ? e.name : `${dir}/${e.name}`;
    if (e.name.startsWith(".") || SKIPPED.has(e.name)) return [];
    if (e.isDirectory()) return listFiles(repoRoot, file);
    return e.isFile() && isProgramCode(file) ? [file] : [];
  });
}

/** Every TypeScript program file of the repository with its text, sorted by path. */
export function readRepositorySources(repoRoot: string): SourceFile[] {
  return listFiles(repoRoot, "")
    .sort(byText)
    .map((file) => ({ path: file, text: fs.readFileSync(path.join(repoRoot, file), "utf8") }));
}
