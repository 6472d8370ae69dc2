/**
 * TEST BED ONLY: an offline "mirror" for the sandbox — one `.tar.gz` per binary (the layout an
 * air-gapped site would host), built once from the test bed's binaries and cached, served over HTTP
 * on 127.0.0.1 with its SHA-256, so hosts install exactly as they would from a real mirror.
 */
import { execFileSync } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { serveDirectory, FileServer } from "../test/support/hosts/fileServer";

/** A tarball on the mirror. */
export interface MirroredArtifact {
  readonly url: string;
  readonly sha256: string;
}

/** The running mirror. */
export interface SandboxMirror {
  readonly server: FileServer;
  /** Tarballs by name (`kube-apiserver`, `karmada-scheduler`, `etcd`, …). */
  readonly artifacts: Readonly<Record<string, MirroredArtifact>>;
}

function sha256(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** `<cacheDir>/<name>.tar.gz` holding `files` of `dir` at its top level; rebuilt when a file is newer. */
function tarball(cacheDir: string, name: string, dir: string, files: readonly string[]): string {
  const out = path.join(cacheDir, `${name}.tar.gz`);
  const newest = Math.max(...files.map((f) => fs.statSync(path.join(dir, f)).mtimeMs));
  if (!fs.existsSync(out) || fs.statSync(out).mtimeMs < newest) {
    execFileSync("tar", ["-C", dir, "-I", "gzip -1", "-cf", `${out}.part`, ...files]);
    fs.renameSync(`${out}.part`, out);
  }
  return out;
}

/**
 * Builds (or reuses) the tarballs in `cacheDir` and serves them. `sources` maps a tarball name to the
 * directory and files it packs.
 */
export async function startMirror(
  cacheDir: string,
  sources: Readonly<Record<string, { dir: string; files: readonly string[] }>>,
): Promise<SandboxMirror> {
  fs.mkdirSync(cacheDir, { recursive: true });
  const built = Object.entries(sources).map(
    ([name, { dir, files }]) => [name, tarball(cacheDir, name, dir, files)] as const,
  );
  const server = await serveDirectory(cacheDir);
  const artifacts = Object.fromEntries(
    built.map(([name, file]) => [
      name,
      { url: `${server.url}/${path.basename(file)}`, sha256: sha256(file) },
    ]),
  );
  return { server, artifacts };
}
