import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findRelease } from "../../../lib/catalog";
import {
  crdNames,
  loadCrdBundle,
  PARSED_CACHE_ENTRIES,
  parsedCachePath,
  tarballParseKey,
} from "../../../lib/crds";
import {
  bundleDir,
  extractedFixture,
  fileSha256,
  FIXTURE_CRDS,
  removeTempDirs,
  tarball,
  tempDir,
} from "./fixtures";

const release = findRelease("v1.18.2");
const webhook = { namespace: "karmada-host" };
const parsedEntries = (cacheDir: string) =>
  existsSync(join(cacheDir, "parsed")) ? readdirSync(join(cacheDir, "parsed")) : [];
const load = (path: string, cacheDir: string) =>
  loadCrdBundle({ kind: "path", path }, release, { webhook, cacheDir });

afterAll(removeTempDirs);

describe("the parsed-bundle cache", () => {
  it("parses a tarball once: later loads take the parse from the cache and give the same CRDs", async () => {
    const cacheDir = tempDir();
    const file = await tarball(FIXTURE_CRDS);
    const first = await load(file, cacheDir);
    expect(first.parsedFromCache).toBe(false);
    expect(existsSync(parsedCachePath(cacheDir, tarballParseKey(fileSha256(file))))).toBe(true);
    const second = await load(file, cacheDir);
    expect(second).toMatchObject({ parsedFromCache: true, sha256: fileSha256(file), source: file });
    expect(second.crds).toEqual(first.crds);
    expect(crdNames(second)).toEqual(["gadgets.example.io", "gizmos.example.io", "widgets.example.io"]);
    // the conversion patch is applied per load, so another webhook target is honoured from the cache
    const hosts = await loadCrdBundle({ kind: "path", path: file }, release, {
      cacheDir,
      webhook: { namespace: "ns1", baseUrl: "https://10.0.0.5:8443" },
    });
    expect(hosts.parsedFromCache).toBe(true);
    const widgets = hosts.crds.find((crd) => crd.metadata.name === "widgets.example.io") as any;
    expect(widgets.spec.conversion.webhook.clientConfig.url).toBe("https://10.0.0.5:8443/convert");
  });

  it("parses an edited directory again: the key is the files' content", async () => {
    const cacheDir = tempDir();
    const dir = extractedFixture();
    const widgetsFile = join(dir, "crds/bases/toys/example.io_widgets.yaml");
    expect((await load(dir, cacheDir)).parsedFromCache).toBe(false);
    expect((await load(dir, cacheDir)).parsedFromCache).toBe(true);
    writeFileSync(
      widgetsFile,
      readFileSync(widgetsFile, "utf8").replace("plural: widgets", "plural: widgetz"),
    );
    const edited = await load(dir, cacheDir);
    expect(edited.parsedFromCache).toBe(false);
    const widgets = edited.crds.find((crd) => crd.metadata.name === "widgets.example.io") as any;
    expect(widgets.spec.names.plural).toBe("widgetz");
    expect(parsedEntries(cacheDir)).toHaveLength(2);
  });

  it.each([
    ["not JSON", () => "garbage"],
    ["truncated", (text: string) => text.slice(0, text.length / 2)],
    ["of another key", (text: string) => text.replace(/"key":"[^"]+"/, '"key":"someone-else"')],
    ["of another shape", (text: string) => text.replace('"bases":[', '"bases":"no","was":[')],
  ])("ignores and rewrites an entry that is %s", async (_, spoil) => {
    const cacheDir = tempDir();
    const file = await tarball(FIXTURE_CRDS);
    const good = await load(file, cacheDir);
    const entry = parsedCachePath(cacheDir, tarballParseKey(fileSha256(file)));
    const text = readFileSync(entry, "utf8");
    writeFileSync(entry, spoil(text));
    const reparsed = await load(file, cacheDir);
    expect(reparsed.parsedFromCache).toBe(false);
    expect(reparsed.crds).toEqual(good.crds);
    expect(readFileSync(entry, "utf8")).toBe(text);
  });

  it("costs only the parse when the cache directory cannot be written", async () => {
    const notADir = join(tempDir(), "file");
    writeFileSync(notADir, "");
    const first = await load(FIXTURE_CRDS, notADir);
    const second = await load(FIXTURE_CRDS, notADir);
    expect([first.parsedFromCache, second.parsedFromCache]).toEqual([false, false]);
    expect(second.crds).toEqual(first.crds);
  });

  it("never caches a parse JSON would change (.inf), nor a file that fails to parse", async () => {
    const cacheDir = tempDir();
    const gadgets = readFileSync(join(FIXTURE_CRDS, "bases/toys/example.io_gadgets.yaml"), "utf8");
    const infinite = bundleDir({
      "crds/bases/a.yaml": gadgets.replace("type: object\n---", "type: object\n          maximum: .inf\n---"),
    });
    for (let i = 0; i < 2; i++) {
      const bundle = await load(infinite, cacheDir);
      expect(bundle.parsedFromCache).toBe(false);
      const gizmos = bundle.crds.find((crd) => crd.metadata.name === "gizmos.example.io") as any;
      expect(gizmos.spec.versions[0].schema.openAPIV3Schema.maximum).toBe(Infinity);
    }
    const broken = bundleDir({ "crds/bases/a.yaml": "kind: [unclosed\n" });
    await expect(load(broken, cacheDir)).rejects.toThrow(/crds\/bases\/a.yaml .* is not valid YAML/);
    expect(parsedEntries(cacheDir)).toEqual([]);
  });

  it(`keeps the ${PARSED_CACHE_ENTRIES} most recently written parses`, async () => {
    const cacheDir = tempDir();
    const stale = Array.from({ length: PARSED_CACHE_ENTRIES + 3 }, (_, i) => `stale-${i}.json`);
    const parsedDir = join(cacheDir, "parsed");
    await load(FIXTURE_CRDS, cacheDir); // creates the directory and one entry
    const [fresh] = parsedEntries(cacheDir);
    stale.forEach((name, i) => {
      writeFileSync(join(parsedDir, name), "{}");
      utimesSync(join(parsedDir, name), 1_000_000 + i, 1_000_000 + i); // stale-0 the oldest
    });
    utimesSync(join(parsedDir, fresh), 900_000, 900_000); // written before every stale one
    const file = await tarball(FIXTURE_CRDS);
    await load(file, cacheDir);
    const kept = parsedEntries(cacheDir).sort();
    expect(kept).toHaveLength(PARSED_CACHE_ENTRIES);
    expect(kept).toContain(`${tarballParseKey(fileSha256(file))}.json`);
    // the newest stale ones survive; the oldest (the fixture's, then stale-0 …) go
    expect(kept).not.toContain(fresh);
    expect(kept).toEqual(
      [
        ...stale.slice(stale.length - (PARSED_CACHE_ENTRIES - 1)),
        `${tarballParseKey(fileSha256(file))}.json`,
      ].sort(),
    );
  });
});
