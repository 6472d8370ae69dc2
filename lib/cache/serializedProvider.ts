/**
 * Serialized dynamic providers, cached on disk. A dynamic resource carries its provider as the text of
 * a JavaScript module (its `__provider` input), which the Pulumi SDK makes by serializing the
 * provider's closure once per process: for the control plane's drift checks ≈ 0.5 s of every preview and
 * `up`, most of it loading `typescript` to parse the captured functions. Each of the library's providers
 * (drift checks, pull members' drains) has its own entry. The text depends only on the
 * code it is made of and on the serializer, so it is cached under a key over both: the SDK's version,
 * Node's major version, where the code lives (modules under node_modules are serialized as `require`
 * calls, others by value) and every source file of the library's `lib/` and `components/`. Any edit to
 * the library — not only to the functions the closure holds — makes a new entry; nothing is guessed.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { version as pulumiSdkVersion } from "@pulumi/pulumi/package.json";
import { writeCacheEntry } from "./entries";

/** A dynamic provider's module text, as the SDK's serializer makes it. */
export interface SerializedProvider {
  /** The module's text; it exports `handler`, which returns the provider. */
  readonly text: string;
  /** Whether the closure captured a secret (such a text is never cached and is sent as a secret). */
  readonly containsSecrets: boolean;
  /** Whether the text came from the cache instead of the serializer. */
  readonly fromCache: boolean;
}

/** Where a provider's code lives: the library's root (holding `lib/` and `components/`) and its source files' extension. */
export interface ProviderCode {
  /** The directory holding `lib/` and `components/` (the repository, or the package's `bin/`). */
  readonly root: string;
  /** `.ts` when run from the sources (ts-node), `.js` when compiled. */
  readonly extension: string;
}

/** Serialized providers kept (one per library build); older ones are removed when a new one is written. */
export const PROVIDER_CACHE_ENTRIES = 16;

/** The directories of the library whose code a provider's closure may hold. */
const CODE_DIRS = ["lib", "components"] as const;

/**
 * A sha256 over every `<extension>` file (declarations excepted) under the root's `lib/` and
 * `components/` — path and bytes, in path order — and, for TypeScript sources, the root's tsconfig.json
 * (its target decides the JavaScript the functions are serialized as).
 */
export function codeFingerprint(code: ProviderCode): string {
  const files: string[] = [];
  for (const dir of CODE_DIRS) {
    let names: string[] = [];
    try {
      names = readdirSync(join(code.root, dir), { recursive: true, encoding: "utf8" });
    } catch {
      // a root without this directory: nothing of it to hash
    }
    for (const name of names) {
      if (name.endsWith(code.extension) && !name.endsWith(".d.ts")) files.push(join(dir, name));
    }
  }
  if (code.extension === ".ts") files.push("tsconfig.json");
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    let data: Buffer;
    try {
      data = readFileSync(join(code.root, file));
    } catch {
      data = Buffer.alloc(0);
    }
    hash.update(`${file}\0${data.length}\0`).update(data);
  }
  return hash.digest("hex");
}

/**
 * The cache key of the provider `name` (one of the library's: each has its own text) serialized from code
 * with this fingerprint, at this root.
 */
export function providerCacheKey(code: ProviderCode, fingerprint: string, name: string): string {
  const parts = ["v2", name, pulumiSdkVersion, process.versions.node.split(".")[0], code.root, fingerprint];
  return createHash("sha256").update(parts.join("\0")).digest("hex");
}

/** `<cacheDir>/<key>.json` */
export const providerCachePath = (cacheDir: string, key: string): string => join(cacheDir, `${key}.json`);

interface CachedProvider {
  readonly key: string;
  readonly text: string;
}

function readCachedProvider(cacheDir: string, key: string): string | undefined {
  try {
    const cached = JSON.parse(
      readFileSync(providerCachePath(cacheDir, key), "utf8"),
    ) as Partial<CachedProvider>;
    const valid =
      cached?.key === key && typeof cached.text === "string" && cached.text.includes("exports.handler");
    return valid ? cached.text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `provider` serialized as the SDK's `dynamic.Resource` would (`() => provider`, exported as `handler`),
 * read from `cacheDir` when this code was serialized before. An unreadable, truncated or foreign entry is
 * serialized again and rewritten; a cache that cannot be written only costs the serialization.
 *
 * The lookup is synchronous (≈ 1 MB of sources hashed once per process), so on a miss the serializer
 * starts at registration, as the SDK's own does: the serializer loads modules lazily, which must not
 * happen later than the program (or a test) that registered the resource.
 */
export function serializeProvider(
  provider: pulumi.dynamic.ResourceProvider,
  name: string,
  code: ProviderCode,
  cacheDir: string,
): Promise<SerializedProvider> {
  const key = providerCacheKey(code, codeFingerprint(code), name);
  const cached = readCachedProvider(cacheDir, key);
  if (cached !== undefined) return Promise.resolve({ text: cached, containsSecrets: false, fromCache: true });
  return pulumi.runtime
    .serializeFunction(() => provider, { allowSecrets: true })
    .then(async (serialized) => {
      if (!serialized.containsSecrets) {
        const entry: CachedProvider = { key, text: serialized.text };
        await writeCacheEntry(cacheDir, `${key}.json`, JSON.stringify(entry), PROVIDER_CACHE_ENTRIES);
      }
      return { text: serialized.text, containsSecrets: serialized.containsSecrets, fromCache: false };
    });
}
