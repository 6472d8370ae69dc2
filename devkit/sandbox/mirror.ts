/**
 * TEST BED ONLY: an offline "mirror" for the sandbox — one `.tar.gz` per binary (the layout an
 * air-gapped site would host), built once from the test bed's binaries and cached, served over HTTP
 * by the sandbox's network daemon with its SHA-256, so hosts install exactly as they would from a real
 * mirror.
 */
import { execFileSync } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

/** A tarball on the mirror. */
export interface MirroredArtifact {
  readonly url: string;
  readonly sha256: string;
}

function sha256(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** `<cacheDir>/<name>.tar.gz` holding `files` of `dir` at its top level; rebuilt when a file is newer. */
function tarball(cacheDir: string, name: string, dir: string, files: readonly string[]): string {
  const out = path.join(cacheDir, `${name}.tar.gz`);
  const newest = Math.max(...files.map((f) => fs.statSync(path.join(dir, f)).mtimeMs));
  if (!fs.existsSync(out) || fs.statSync(out).mtimeMs < newest) {
    const part = `${out}.part-${process.pid}`; // concurrent estates share the cache
    execFileSync("tar", ["-C", dir, "-I", "gzip -1", "-cf", part, ...files]);
    fs.renameSync(part, out);
  }
  return out;
}

/**
 * Builds (or reuses) the tarballs in `cacheDir`, to be served from `baseUrl` (scripts/sandbox/network.ts).
 * `sources` maps a tarball name to the directory and files it packs.
 */
export function packMirror(
  cacheDir: string,
  baseUrl: string,
  sources: Readonly<Record<string, { dir: string; files: readonly string[] }>>,
): Record<string, MirroredArtifact> {
  fs.mkdirSync(cacheDir, { recursive: true });
  return Object.fromEntries(
    Object.entries(sources).map(([name, { dir, files }]) => {
      const file = tarball(cacheDir, name, dir, files);
      return [name, { url: `${baseUrl}/${path.basename(file)}`, sha256: sha256(file) }];
    }),
  );
}
