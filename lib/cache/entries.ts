/**
 * The library's on-disk cache: one directory (`${PULUMI_KARMADA_CACHE:-~/.cache/pulumi-karmada}`) with a
 * subdirectory per kind of entry — downloads and parsed CRD bundles (`crds/`), serialized dynamic
 * providers (`providers/`). Entries are derived data keyed by what they were derived from, so any of
 * them may vanish; writing one never fails the caller.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** `${PULUMI_KARMADA_CACHE:-~/.cache/pulumi-karmada}` */
export function cacheRoot(): string {
  return process.env.PULUMI_KARMADA_CACHE || join(homedir(), ".cache", "pulumi-karmada");
}

/**
 * Writes `text` to `<dir>/<name>` (written then renamed, so a concurrent reader sees all of it or
 * nothing), then removes all but the `keep` most recently written entries of `dir` with the same
 * extension as `name`. Best effort: a directory that cannot be written (read-only home) is ignored,
 * since the caller already holds the value.
 */
export async function writeCacheEntry(dir: string, name: string, text: string, keep: number): Promise<void> {
  const path = join(dir, name);
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, path);
    await pruneCacheEntries(dir, name.slice(name.lastIndexOf(".")), keep);
  } catch {
    // only the cache entry is missing
  } finally {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

/** Removes all but the `keep` most recently written entries of `dir` whose names end in `extension`. */
async function pruneCacheEntries(dir: string, extension: string, keep: number): Promise<void> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(extension));
  if (names.length <= keep) return;
  const written = await Promise.all(
    names.map(async (name) => ({ name, mtimeMs: (await stat(join(dir, name))).mtimeMs })),
  );
  written.sort((a, b) => b.mtimeMs - a.mtimeMs);
  await Promise.all(written.slice(keep).map(({ name }) => rm(join(dir, name), { force: true })));
}
