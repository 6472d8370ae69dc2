import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CrdBundleError } from "./errors";

/** Hex sha256 of some bytes or text. */
export const sha256Hex = (data: Buffer | string): string => createHash("sha256").update(data).digest("hex");

/** Options of {@link downloadCached}. */
export interface DownloadOptions {
  /** Directory of the download cache; created if missing. */
  readonly cacheDir: string;
  /** Expected sha256 (hex, lower case) of the content. @default - not checked */
  readonly sha256?: string;
  /** Give up after this long. @default 120000 */
  readonly timeoutMs?: number;
}

/** A downloaded file. */
export interface Download {
  /** The file's bytes. */
  readonly data: Buffer;
  /** Where it is cached. */
  readonly path: string;
  /** Whether it came from the cache rather than the network. */
  readonly fromCache: boolean;
}

const HINT =
  'for offline installs point the CRD source at a mirror ({kind: "url", url}) or a local tarball or directory ({kind: "path", path})';

/** Cache file of a URL: keyed by the URL's sha256, so changing the URL never reuses a stale file. */
export const cachePath = (cacheDir: string, url: string): string =>
  join(cacheDir, `${sha256Hex(url)}.tar.gz`);

async function fetchBytes(url: string, timeoutMs: number): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
    throw new CrdBundleError(url, `cannot download Karmada CRDs from ${url}: ${cause}; ${HINT}`);
  }
  if (!response.ok) {
    throw new CrdBundleError(
      url,
      `cannot download Karmada CRDs from ${url}: HTTP ${response.status} ${response.statusText}; ${HINT}`,
    );
  }
  return Buffer.from(await response.arrayBuffer());
}

/** Throws unless `data` has the expected digest. */
export function verifySha256(data: Buffer, expected: string | undefined, source: string): void {
  if (expected === undefined) return;
  const actual = sha256Hex(data);
  if (actual !== expected) {
    throw new CrdBundleError(source, `sha256 mismatch for ${source}: expected ${expected}, got ${actual}`);
  }
}

/**
 * Returns the content of `url`, from the cache when present (and matching `sha256`), else downloaded
 * (redirects followed), verified and then cached. A cached file that fails the check is discarded and
 * fetched again, so a corrupt cache heals itself; a fresh download that fails it is an error.
 */
export async function downloadCached(url: string, options: DownloadOptions): Promise<Download> {
  const path = cachePath(options.cacheDir, url);
  const cached = await readFile(path).catch(() => undefined);
  if (cached && (options.sha256 === undefined || sha256Hex(cached) === options.sha256)) {
    return { data: cached, path, fromCache: true };
  }
  const data = await fetchBytes(url, options.timeoutMs ?? 120_000);
  verifySha256(data, options.sha256, url);
  await mkdir(options.cacheDir, { recursive: true });
  // Write then rename, so a concurrent reader never sees a partial file.
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
  return { data, path, fromCache: false };
}
