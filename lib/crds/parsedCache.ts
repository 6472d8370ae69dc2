import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { version as jsYamlVersion } from "js-yaml/package.json";
import { writeCacheEntry } from "../cache/entries";
import { BundleFiles } from "./archive";
import { ParsedBundle, ParsedBundleFile } from "./bundle";
import { sha256Hex } from "./download";

/**
 * What a cached parse depends on besides the bundle's bytes: this file's format and the parser. A new
 * js-yaml release or format gets new cache files instead of reading old ones.
 */
const PARSE_FORMAT = `v1-js-yaml-${jsYamlVersion}-core`;

/** Cache key of a tarball's parse: its sha256 (already computed to verify or report it). */
export const tarballParseKey = (sha256: string): string => `${PARSE_FORMAT}-tar-${sha256}`;

/** Cache key of a directory's parse: a sha256 over every file's path and bytes, in path order. */
export function filesParseKey(files: BundleFiles): string {
  const digest = sha256Hex(
    Buffer.concat(
      [...files.keys()].sort().flatMap((path) => {
        const data = files.get(path)!;
        return [Buffer.from(`${path}\0${data.length}\0`), data];
      }),
    ),
  );
  return `${PARSE_FORMAT}-dir-${digest}`;
}

/**
 * Parses kept in a cache directory: one per bundle content (≈ 0.4 MB for a Karmada release); older ones
 * beyond this are removed when a new one is written, so edited local bundles do not pile up.
 */
export const PARSED_CACHE_ENTRIES = 16;

/** `<cacheDir>/parsed/<key>.json` */
export const parsedCachePath = (cacheDir: string, key: string): string =>
  join(cacheDir, "parsed", `${key}.json`);

interface CachedParse extends ParsedBundle {
  readonly key: string;
}

const isParsedFiles = (value: unknown): value is ParsedBundleFile[] =>
  Array.isArray(value) &&
  value.every(
    (entry) =>
      typeof entry?.file === "string" &&
      Array.isArray(entry.docs) &&
      entry.docs.every((doc: unknown) => doc !== null && typeof doc === "object"),
  );

/**
 * The cached parse under `key`, or undefined when there is none or it is unreadable, truncated or of
 * another key (a cache never fails a load: the bundle is parsed again and the entry rewritten).
 */
export async function readParsedBundle(cacheDir: string, key: string): Promise<ParsedBundle | undefined> {
  const text = await readFile(parsedCachePath(cacheDir, key), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  let cached: Partial<CachedParse>;
  try {
    cached = JSON.parse(text) as Partial<CachedParse>;
  } catch {
    return undefined;
  }
  if (cached?.key !== key || !isParsedFiles(cached.bases) || !isParsedFiles(cached.patches)) return undefined;
  return { bases: cached.bases, patches: cached.patches };
}

/**
 * Stores a parse under `key`, written then renamed so a concurrent reader sees all of it or nothing.
 * Best effort: a cache directory that cannot be written (read-only home) only costs the next parse.
 */
export async function writeParsedBundle(cacheDir: string, key: string, parsed: ParsedBundle): Promise<void> {
  const entry: CachedParse = { key, bases: parsed.bases, patches: parsed.patches };
  // JSON holds every YAML core value but .inf/.nan (they would come back as null): a bundle holding
  // one is parsed every time instead of being cached altered.
  let exact = true;
  const text = JSON.stringify(entry, (_, value: unknown) => {
    if (typeof value === "number" && !Number.isFinite(value)) exact = false;
    return value;
  });
  if (!exact) return;
  await writeCacheEntry(join(cacheDir, "parsed"), `${key}.json`, text, PARSED_CACHE_ENTRIES);
}
