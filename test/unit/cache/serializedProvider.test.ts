/**
 * The on-disk cache of serialized dynamic providers: the text is the SDK serializer's, keyed by the
 * library's code (any source file under lib/ or components/, tsconfig.json for sources) so an edit is
 * never served a stale provider; spoiled entries and unwritable caches only cost a serialization.
 */
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { writeCacheEntry } from "../../../lib/cache/entries";
import {
  codeFingerprint,
  PROVIDER_CACHE_ENTRIES,
  ProviderCode,
  providerCacheKey,
  providerCachePath,
  serializeProvider,
} from "../../../lib/cache/serializedProvider";
import { bundleDir, removeTempDirs, tempDir } from "../crds/fixtures";

afterAll(removeTempDirs);

const GREETING = "hello from the provider";
const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: { name: string }) {
    return { id: inputs.name, outs: { greeting: GREETING } };
  },
};

/** A library tree: two source files, a declaration, a file of another kind, a tsconfig. */
const codeTree = (extension: string): ProviderCode => ({
  root: bundleDir({
    [`lib/a${extension}`]: "export const a = 1;\n",
    [`components/sub/b${extension}`]: "export const b = 2;\n",
    "lib/types.d.ts": "export type T = string;\n",
    "lib/notes.md": "notes\n",
    "tsconfig.json": '{"compilerOptions":{"target":"ES2022"}}\n',
  }),
  extension,
});

/** Loads a provider's module text as the engine's Node.js dynamic-provider host does. */
function loadProviderModule(text: string): pulumi.dynamic.ResourceProvider {
  const module = { exports: {} as { handler: () => pulumi.dynamic.ResourceProvider } };
  new Function("exports", "require", "module", text)(module.exports, require, module);
  return module.exports.handler();
}

describe("codeFingerprint", () => {
  test("is computed synchronously, so a miss starts the serializer at registration as the SDK does", () => {
    expect(codeFingerprint(codeTree(".ts"))).toMatch(/^[0-9a-f]{64}$/);
  });

  test("changes with any source file's bytes, a new source file or the tsconfig of sources", async () => {
    const code = codeTree(".ts");
    const before = codeFingerprint(code);
    expect(codeFingerprint(code)).toBe(before);
    writeFileSync(join(code.root, "components/sub/b.ts"), "export const b = 3;\n");
    const edited = codeFingerprint(code);
    expect(edited).not.toBe(before);
    writeFileSync(join(code.root, "lib/c.ts"), "");
    const added = codeFingerprint(code);
    expect(added).not.toBe(edited);
    writeFileSync(join(code.root, "tsconfig.json"), '{"compilerOptions":{"target":"ES2020"}}\n');
    expect(codeFingerprint(code)).not.toBe(added);
  });

  test("ignores declarations, other kinds of file and, for compiled code, the tsconfig", async () => {
    const code = codeTree(".js");
    const before = codeFingerprint(code);
    writeFileSync(join(code.root, "lib/types.d.ts"), "export type T = number;\n");
    writeFileSync(join(code.root, "lib/notes.md"), "other notes\n");
    writeFileSync(join(code.root, "lib/x.ts"), "export const x = 1;\n");
    writeFileSync(join(code.root, "tsconfig.json"), "{}\n");
    expect(codeFingerprint(code)).toBe(before);
    writeFileSync(join(code.root, "lib/a.js"), "exports.a = 2;\n");
    expect(codeFingerprint(code)).not.toBe(before);
  });

  test("the same files at another root give another key (the serializer's text depends on the location)", async () => {
    const one = codeTree(".ts");
    const other = codeTree(".ts");
    const fingerprint = codeFingerprint(one);
    expect(codeFingerprint(other)).toBe(fingerprint);
    expect(providerCacheKey(other, fingerprint, "greeting")).not.toBe(
      providerCacheKey(one, fingerprint, "greeting"),
    );
  });
});

describe("serializeProvider", () => {
  test("serializes as the SDK does, then serves the same text from the cache; the text works as a provider", async () => {
    const code = codeTree(".ts");
    const cacheDir = tempDir("provider-cache-");
    const expected = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
    const first = await serializeProvider(provider, "greeting", code, cacheDir);
    expect(first).toEqual({ text: expected.text, containsSecrets: false, fromCache: false });
    const second = await serializeProvider(provider, "greeting", code, cacheDir);
    expect(second).toEqual({ text: expected.text, containsSecrets: false, fromCache: true });
    const created = await loadProviderModule(second.text).create!({ name: "x" });
    expect(created).toEqual({ id: "x", outs: { greeting: GREETING } });
  });

  test("two providers of one library build get an entry each, and each is served its own text", async () => {
    const code = codeTree(".ts");
    const cacheDir = tempDir("provider-cache-");
    const other: pulumi.dynamic.ResourceProvider = {
      async create() {
        return { id: "other", outs: { greeting: "the other provider" } };
      },
    };
    await serializeProvider(provider, "greeting", code, cacheDir);
    await serializeProvider(other, "other", code, cacheDir);
    const greeting = await serializeProvider(provider, "greeting", code, cacheDir);
    const second = await serializeProvider(other, "other", code, cacheDir);
    expect([greeting.fromCache, second.fromCache]).toEqual([true, true]);
    expect(await loadProviderModule(greeting.text).create!({ name: "x" })).toEqual({
      id: "x",
      outs: { greeting: GREETING },
    });
    expect(await loadProviderModule(second.text).create!({})).toEqual({
      id: "other",
      outs: { greeting: "the other provider" },
    });
  });

  test("an edit to the library's code is serialized again under a new entry", async () => {
    const code = codeTree(".ts");
    const cacheDir = tempDir("provider-cache-");
    await serializeProvider(provider, "greeting", code, cacheDir);
    writeFileSync(join(code.root, "lib/a.ts"), "export const a = 2;\n");
    expect((await serializeProvider(provider, "greeting", code, cacheDir)).fromCache).toBe(false);
    expect(readdirSync(cacheDir).filter((name) => name.endsWith(".json"))).toHaveLength(2);
    expect((await serializeProvider(provider, "greeting", code, cacheDir)).fromCache).toBe(true);
  });

  test.each([
    ["not JSON", () => "{ trunc"],
    ["another key's entry", () => JSON.stringify({ key: "0".repeat(64), text: "exports.handler = 1;" })],
    ["no module text", (key: string) => JSON.stringify({ key, text: "console.log(1)" })],
    ["an empty file", () => ""],
  ])("a spoiled entry (%s) is serialized again and rewritten", async (_, spoil) => {
    const code = codeTree(".ts");
    const cacheDir = tempDir("provider-cache-");
    const { text } = await serializeProvider(provider, "greeting", code, cacheDir);
    const key = providerCacheKey(code, codeFingerprint(code), "greeting");
    const entry = providerCachePath(cacheDir, key);
    const good = readFileSync(entry, "utf8");
    writeFileSync(entry, spoil(key));
    expect(await serializeProvider(provider, "greeting", code, cacheDir)).toEqual({
      text,
      containsSecrets: false,
      fromCache: false,
    });
    expect(readFileSync(entry, "utf8")).toBe(good);
  });

  test("a cache directory that cannot be written only costs the serialization", async () => {
    const code = codeTree(".ts");
    // a file where the directory should be (permissions would not stop root)
    const cacheDir = join(tempDir("provider-cache-"), "file");
    writeFileSync(cacheDir, "");
    const first = await serializeProvider(provider, "greeting", code, cacheDir);
    const second = await serializeProvider(provider, "greeting", code, cacheDir);
    expect([first.fromCache, second.fromCache]).toEqual([false, false]);
    expect(second.text).toBe(first.text);
  });
});

describe("writeCacheEntry", () => {
  test(`keeps the ${PROVIDER_CACHE_ENTRIES} most recently written entries of the same kind`, async () => {
    const dir = tempDir("cache-entries-");
    const past = Date.now() / 1000 - 3600;
    for (let i = 0; i < PROVIDER_CACHE_ENTRIES; i++) {
      await writeCacheEntry(dir, `old-${i}.json`, "{}", PROVIDER_CACHE_ENTRIES);
      utimesSync(join(dir, `old-${i}.json`), past + i, past + i);
    }
    writeFileSync(join(dir, "other.bin"), "kept: another kind of entry");
    await writeCacheEntry(dir, "new.json", "{}", PROVIDER_CACHE_ENTRIES);
    const left = readdirSync(dir).sort();
    expect(left).toHaveLength(PROVIDER_CACHE_ENTRIES + 1);
    expect(left).toContain("new.json");
    expect(left).toContain("other.bin");
    expect(left).not.toContain("old-0.json");
    expect(left.some((name) => name.endsWith(".tmp"))).toBe(false);
  });
});
