import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { cacheRoot } from "../cache/entries";
import { KarmadaRelease } from "../catalog/releases";
import { BundleFiles, readDirectory, readTarball } from "./archive";
import { assembleCrdBundle, ConversionWebhookTarget, CrdBundle, parseCrdBundle } from "./bundle";
import { downloadCached, sha256Hex, verifySha256 } from "./download";
import { CrdBundleError } from "./errors";
import { filesParseKey, readParsedBundle, tarballParseKey, writeParsedBundle } from "./parsedCache";
import { CrdSource, describeSource, resolveCrdSource } from "./source";

/** Options of {@link loadCrdBundle}. */
export interface LoadCrdBundleOptions {
  /**
   * Cache directory: downloads by URL, and every bundle's parsed YAML by content digest under `parsed/`
   * (parsing Karmada's 0.7 MB of CRDs is most of a bundle's load time). @default {@link defaultCrdCacheDir}()
   */
  readonly cacheDir?: string;
  /** Where the conversion webhooks in the CRD patches point. */
  readonly webhook: ConversionWebhookTarget;
  /** Download timeout. @default 120000 */
  readonly timeoutMs?: number;
}

/** `${PULUMI_KARMADA_CACHE:-~/.cache/pulumi-karmada}/crds`. */
export function defaultCrdCacheDir(): string {
  return join(cacheRoot(), "crds");
}

/** A bundle's bytes: a tarball not yet extracted (its parse may be cached), or a directory's files. */
type BundleBytes =
  | { readonly kind: "tarball"; readonly data: Buffer; readonly fromCache: boolean }
  | { readonly kind: "directory"; readonly files: BundleFiles };

async function readLocal(path: string, sha256: string | undefined): Promise<BundleBytes> {
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
    return { kind: "directory", files: await readDirectory(path) };
  }
  const data = await readFile(path);
  verifySha256(data, sha256, path);
  return { kind: "tarball", data, fromCache: false };
}

/**
 * Loads Karmada's CRDs for `release` from `source`: downloads (cached by URL) or reads the tarball or
 * directory, checks the optional sha256, parses `crds/bases/**` (or takes the parse from the cache when
 * these exact bytes were parsed before), applies `crds/patches/*` (conversion webhooks pointed at
 * `options.webhook`, CA bundle left as the CA placeholder) and returns the CRDs sorted by name. Failures
 * are {@link CrdBundleError}s naming the URL or path; a bad source is a ConfigError naming the field.
 */
export async function loadCrdBundle(
  source: CrdSource,
  release: KarmadaRelease,
  options: LoadCrdBundleOptions,
): Promise<CrdBundle> {
  const resolved = resolveCrdSource(source, release);
  const origin = describeSource(resolved);
  const cacheDir = options.cacheDir ?? defaultCrdCacheDir();
  let bytes: BundleBytes;
  if (resolved.kind === "url") {
    const download = await downloadCached(resolved.url, {
      cacheDir,
      sha256: resolved.sha256,
      timeoutMs: options.timeoutMs,
    });
    bytes = { kind: "tarball", data: download.data, fromCache: download.fromCache };
  } else {
    bytes = await readLocal(resolved.path, resolved.sha256);
  }
  const sha256 = bytes.kind === "tarball" ? sha256Hex(bytes.data) : undefined;
  const key = bytes.kind === "tarball" ? tarballParseKey(sha256!) : filesParseKey(bytes.files);
  let parsed = await readParsedBundle(cacheDir, key);
  const parsedFromCache = parsed !== undefined;
  if (!parsed) {
    const files = bytes.kind === "tarball" ? await readTarball(bytes.data, origin) : bytes.files;
    parsed = parseCrdBundle(files, origin);
    await writeParsedBundle(cacheDir, key, parsed);
  }
  return {
    crds: assembleCrdBundle(parsed, origin, options.webhook),
    source: origin,
    sha256,
    fromCache: bytes.kind === "tarball" && bytes.fromCache,
    parsedFromCache,
  };
}
