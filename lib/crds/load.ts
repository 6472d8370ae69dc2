import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { KarmadaRelease } from "../catalog/releases";
import { BundleFiles, readDirectory, readTarball } from "./archive";
import { buildCrdBundle, ConversionWebhookTarget, CrdBundle } from "./bundle";
import { downloadCached, sha256Hex, verifySha256 } from "./download";
import { CrdBundleError } from "./errors";
import { CrdSource, describeSource, resolveCrdSource } from "./source";

/** Options of {@link loadCrdBundle}. */
export interface LoadCrdBundleOptions {
  /** Download cache directory. @default {@link defaultCrdCacheDir}() */
  readonly cacheDir?: string;
  /** Where the conversion webhooks in the CRD patches point. */
  readonly webhook: ConversionWebhookTarget;
  /** Download timeout. @default 120000 */
  readonly timeoutMs?: number;
}

/** `${PULUMI_KARMADA_CACHE:-~/.cache/pulumi-karmada}/crds`. */
export function defaultCrdCacheDir(): string {
  return join(process.env.PULUMI_KARMADA_CACHE || join(homedir(), ".cache", "pulumi-karmada"), "crds");
}

async function readLocal(
  path: string,
  sha256: string | undefined,
): Promise<{ files: BundleFiles; sha256?: string }> {
  const info = await stat(path).catch(() => undefined);
  if (!info) {
    throw new CrdBundleError(
      path,
      `CRD bundle ${path} does not exist (expected a crds.tar.gz or a directory)`,
    );
  }
  if (info.isDirectory()) {
    if (sha256 !== undefined) {
      throw new CrdBundleError(
        path,
        `a sha256 was given for ${path}, but it is a directory; checksums apply to tarballs`,
      );
    }
    return { files: await readDirectory(path) };
  }
  const data = await readFile(path);
  verifySha256(data, sha256, path);
  return { files: await readTarball(data, path), sha256: sha256Hex(data) };
}

/**
 * Loads Karmada's CRDs for `release` from `source`: downloads (cached by URL) or reads the tarball or
 * directory, checks the optional sha256, parses `crds/bases/**`, applies `crds/patches/*` (conversion
 * webhooks pointed at `options.webhook`, CA bundle left as the CA placeholder) and returns the CRDs
 * sorted by name. Failures are {@link CrdBundleError}s naming the URL or path; a bad source is a
 * ConfigError naming the field.
 */
export async function loadCrdBundle(
  source: CrdSource,
  release: KarmadaRelease,
  options: LoadCrdBundleOptions,
): Promise<CrdBundle> {
  const resolved = resolveCrdSource(source, release);
  const origin = describeSource(resolved);
  let files: BundleFiles;
  let sha256: string | undefined;
  let fromCache = false;
  if (resolved.kind === "url") {
    const download = await downloadCached(resolved.url, {
      cacheDir: options.cacheDir ?? defaultCrdCacheDir(),
      sha256: resolved.sha256,
      timeoutMs: options.timeoutMs,
    });
    files = await readTarball(download.data, origin);
    sha256 = sha256Hex(download.data);
    fromCache = download.fromCache;
  } else {
    ({ files, sha256 } = await readLocal(resolved.path, resolved.sha256));
  }
  return { crds: buildCrdBundle(files, origin, options.webhook), source: origin, sha256, fromCache };
}
