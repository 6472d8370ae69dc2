/**
 * The import graph of the library's own code, grouped into areas: the package entry (`index.ts`), each
 * file of `stacks/`, each component of `components/` (its top-level file together with the folder of
 * wiring helpers that only it imports), each subdirectory of `lib/`, and the component provider
 * (`provider/`, its schema generator `provider/schema/` apart). Pure: it reads the texts it is
 * given; `sources.ts` reads them from disk.
 */
import { builtinModules } from "module";
import * as path from "path";
import * as ts from "typescript";
import { byText } from "./dot";

/** A source file: repository-relative POSIX path and its text. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** What one file imports: repository files (resolved paths) and npm packages (package names). */
export interface FileImports {
  readonly files: readonly string[];
  readonly packages: readonly string[];
}

const BUILTINS = new Set(builtinModules);

/** The npm package of a bare specifier (`@pulumi/pulumi/automation` → `@pulumi/pulumi`), undefined for Node built-ins. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith("node:") || BUILTINS.has(specifier.split("/")[0])) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * The imports of `file` (import/export-from statements, `import type` included: a type is a dependency
 * too), relative ones resolved against `known` the way Node resolves them (`x.ts`, then `x/index.ts`).
 * Relative imports of anything else (JSON, assets) are not part of the graph.
 */
export function importsOf(file: SourceFile, known: ReadonlySet<string>): FileImports {
  const files = new Set<string>();
  const packages = new Set<string>();
  for (const { fileName } of ts.preProcessFile(file.text, true, true).importedFiles) {
    if (fileName.startsWith(".")) {
      const base = path.posix.normalize(path.posix.join(path.posix.dirname(file.path), fileName));
      const resolved = [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => known.has(candidate));
      if (resolved) files.add(resolved);
    } else {
      const name = packageOf(fileName);
      if (name) packages.add(name);
    }
  }
  return { files: [...files].sort(byText), packages: [...packages].sort(byText) };
}

/** The layer an area belongs to: how the architecture diagram clusters it. */
export type Layer = "entry" | "stacks" | "components" | "lib" | "provider";

/** A group of files drawn as one node. */
export interface ModuleArea {
  /** `index.ts`, `stacks/estate.ts`, `components/etcdCluster.ts`, `lib/pki/` … */
  readonly id: string;
  readonly layer: Layer;
  /** The files it stands for, sorted. */
  readonly files: readonly string[];
  /** Helper folders merged into a component (`components/etcd/`), empty otherwise. */
  readonly mergedFolders: readonly string[];
  /** Top-level folders outside the map whose files import this area (`scripts`, `test` …), sorted. */
  readonly outsideImporters: readonly string[];
}

/** Imports from one area to another (`count` import statements). */
export interface AreaEdge {
  readonly from: string;
  readonly to: string;
  readonly count: number;
}

/** Imports of an npm package by an area. */
export interface PackageEdge {
  readonly from: string;
  readonly package: string;
  readonly count: number;
}

/** The grouped import graph. */
export interface ModuleGraph {
  readonly areas: readonly ModuleArea[];
  readonly edges: readonly AreaEdge[];
  readonly packages: readonly PackageEdge[];
}

/** The layer of a repository path, undefined for files outside the map (tests, scripts, examples …). */
export function layerOf(file: string): Layer | undefined {
  if (file.endsWith(".test.ts")) return undefined;
  if (file === "index.ts") return "entry";
  const top = file.split("/")[0];
  return top === "stacks" || top === "components" || top === "lib" || top === "provider" ? top : undefined;
}

/** `components/etcd/` for `components/etcd/plan.ts`; undefined for a top-level file of `components/`. */
function componentFolder(file: string): string | undefined {
  const parts = file.split("/");
  return parts[0] === "components" && parts.length > 2 ? `${parts[0]}/${parts[1]}/` : undefined;
}

/**
 * Which `components/` folder belongs to which component: a folder imported by exactly one top-level file
 * of `components/` (from outside the folder) is that component's wiring helpers (`components/etcd/` →
 * `components/etcdCluster.ts`). A folder imported by none or several stays an area of its own.
 */
export function folderOwners(imports: ReadonlyMap<string, FileImports>): Map<string, string> {
  const importers = new Map<string, Set<string>>();
  for (const [from, { files }] of imports) {
    if (layerOf(from) !== "components" || componentFolder(from)) continue;
    for (const to of files) {
      const folder = componentFolder(to);
      if (folder) importers.set(folder, (importers.get(folder) ?? new Set()).add(from));
    }
  }
  return new Map(
    [...importers].filter(([, set]) => set.size === 1).map(([folder, set]) => [folder, [...set][0]]),
  );
}

/** The area of a file of the map: see {@link ModuleArea.id}. */
export function areaOf(file: string, owners: ReadonlyMap<string, string>): string {
  const parts = file.split("/");
  if (parts[0] === "lib" && parts.length > 2) return `lib/${parts[1]}/`;
  // the plugin's runtime is one area, the schema generator (a build tool) another
  if (parts[0] === "provider") return parts.length > 2 ? `provider/${parts[1]}/` : "provider/";
  const folder = componentFolder(file);
  if (folder) return owners.get(folder) ?? folder;
  return file;
}

/** Adds `n` to the count under `key`. */
function bump(counts: Map<string, number>, key: string, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/**
 * The grouped import graph of `sources`. Files outside the map (scripts, tests …) are no areas; they only
 * count as {@link ModuleArea.outsideImporters}.
 */
export function moduleGraph(sources: readonly SourceFile[]): ModuleGraph {
  const mapped = sources.filter((s) => layerOf(s.path) !== undefined);
  const known = new Set(mapped.map((s) => s.path));
  const imports = new Map(mapped.map((s) => [s.path, importsOf(s, known)]));
  const owners = folderOwners(imports);
  const outside = new Map<string, Set<string>>();
  for (const s of sources.filter((f) => layerOf(f.path) === undefined)) {
    for (const to of importsOf(s, known).files) {
      const area = areaOf(to, owners);
      outside.set(area, (outside.get(area) ?? new Set()).add(s.path.split("/")[0]));
    }
  }
  const members = new Map<string, string[]>();
  for (const file of [...known].sort(byText)) {
    const area = areaOf(file, owners);
    members.set(area, [...(members.get(area) ?? []), file]);
  }
  const edgeCounts = new Map<string, number>();
  const packageCounts = new Map<string, number>();
  for (const [from, { files, packages }] of imports) {
    const area = areaOf(from, owners);
    for (const to of files)
      if (areaOf(to, owners) !== area) bump(edgeCounts, `${area}\n${areaOf(to, owners)}`);
    for (const name of packages) bump(packageCounts, `${area}\n${name}`);
  }
  const split = (key: string) => key.split("\n") as [string, string];
  return {
    areas: [...members.keys()].sort(byText).map((id) => ({
      id,
      layer: layerOf(members.get(id)![0])!,
      files: members.get(id)!,
      mergedFolders: [...owners].filter(([, owner]) => owner === id).map(([folder]) => folder),
      outsideImporters: [...(outside.get(id) ?? [])].sort(byText),
    })),
    edges: [...edgeCounts]
      .sort(([a], [b]) => byText(a, b))
      .map(([key, count]) => ({ from: split(key)[0], to: split(key)[1], count })),
    packages: [...packageCounts]
      .sort(([a], [b]) => byText(a, b))
      .map(([key, count]) => ({ from: split(key)[0], package: split(key)[1], count })),
  };
}

/**
 * Areas imported by more than `share` of the other areas (e.g. `lib/validation/`): drawing every edge into
 * them would hide the structure, so the diagram notes them once instead.
 */
export function foundationAreas(graph: ModuleGraph, share = 0.5): string[] {
  const importers = new Map<string, number>();
  for (const edge of graph.edges) bump(importers, edge.to);
  const others = graph.areas.length - 1;
  return graph.areas.map((a) => a.id).filter((id) => (importers.get(id) ?? 0) > others * share);
}
