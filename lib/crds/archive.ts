import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { Parser } from "tar";
import { CrdBundleError } from "./errors";

/** Files of a bundle by relative POSIX path (`crds/bases/work/x.yaml`), content as bytes. */
export type BundleFiles = ReadonlyMap<string, Buffer>;

const normalize = (path: string): string => path.replace(/\\/g, "/").replace(/^(\.\/)+/, "");

/** Extracts the regular files of a (gzipped or plain) tarball into memory; nothing touches the disk. */
export function readTarball(data: Buffer, source: string): Promise<BundleFiles> {
  return new Promise((resolve, reject) => {
    const files = new Map<string, Buffer>();
    const fail = (err: Error) =>
      reject(new CrdBundleError(source, `cannot read the CRD tarball ${source}: ${err.message}`));
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry) => {
        if (entry.type !== "File") {
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on("data", (chunk: Buffer) => chunks.push(chunk));
        entry.on("end", () => files.set(normalize(entry.path), Buffer.concat(chunks)));
      },
    });
    parser.on("error", fail);
    parser.on("close", () => resolve(files));
    parser.end(data);
  });
}

/** Reads every YAML file under `dir` (recursively) into memory, keyed by path relative to `dir`. */
export async function readDirectory(dir: string): Promise<BundleFiles> {
  const files = new Map<string, Buffer>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
    const full = join(entry.parentPath, entry.name);
    files.set(relative(dir, full).split(sep).join("/"), await readFile(full));
  }
  return files;
}
