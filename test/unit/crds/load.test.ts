import { readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { findRelease } from "../../../lib/catalog";
import {
  cachePath,
  CrdBundle,
  CrdBundleError,
  crdNames,
  defaultCrdCacheDir,
  loadCrdBundle,
} from "../../../lib/crds";
import { findPlaceholders, PLACEHOLDERS } from "../../../lib/manifests/placeholders";
import {
  bundleDir,
  extractedFixture,
  fileSha256,
  FIXTURE_CRDS,
  removeTempDirs,
  serve,
  tarball,
  tempDir,
  TestServer,
} from "./fixtures";

const release = findRelease("v1.18.2");
const webhook = { namespace: "karmada-host" };
const widgets = (bundle: CrdBundle) =>
  bundle.crds.find((c) => c.metadata.name === "widgets.example.io") as any;
const fixtureYaml = (file: string) => readFileSync(`${FIXTURE_CRDS}/${file}`, "utf8");

// Parses are cached under the default cache directory: this file's go to a directory of its own.
const savedCache = process.env.PULUMI_KARMADA_CACHE;
beforeAll(() => {
  process.env.PULUMI_KARMADA_CACHE = tempDir("crds-cache-");
});
afterAll(() => {
  if (savedCache === undefined) delete process.env.PULUMI_KARMADA_CACHE;
  else process.env.PULUMI_KARMADA_CACHE = savedCache;
  removeTempDirs();
});

describe("loadCrdBundle from a path", () => {
  it("reads a tarball: every CRD, sorted, with the conversion patch filled in", async () => {
    const file = await tarball(FIXTURE_CRDS);
    const bundle = await loadCrdBundle({ kind: "path", path: file }, release, { webhook });
    expect(crdNames(bundle)).toEqual(["gadgets.example.io", "gizmos.example.io", "widgets.example.io"]);
    expect(bundle.crds.map((c) => c.metadata.name)).toEqual(crdNames(bundle));
    expect(bundle).toMatchObject({ source: file, sha256: fileSha256(file), fromCache: false });
    expect(widgets(bundle).spec.conversion).toEqual({
      strategy: "Webhook",
      webhook: {
        clientConfig: {
          url: "https://karmada-webhook.karmada-host.svc:443/convert",
          caBundle: PLACEHOLDERS.caBundle,
        },
        conversionReviewVersions: ["v1"],
      },
    });
    // The patch only adds conversion; the rest of the CRD is as written.
    expect(widgets(bundle).spec.versions.map((v: any) => v.name)).toEqual(["v1alpha1", "v1"]);
    expect(bundle.crds.map((crd) => findPlaceholders(crd).map((u) => u.path))).toEqual([
      [],
      [],
      ["spec.conversion.webhook.clientConfig.caBundle"],
    ]);
  });

  it("reads the same CRDs from an extracted directory, with or without the crds/ level", async () => {
    const fromTarball = await loadCrdBundle({ kind: "path", path: await tarball(FIXTURE_CRDS) }, release, {
      webhook,
    });
    for (const path of [extractedFixture(), FIXTURE_CRDS]) {
      const fromDir = await loadCrdBundle({ kind: "path", path }, release, { webhook });
      expect(fromDir.crds).toEqual(fromTarball.crds);
      expect(fromDir.sha256).toBeUndefined();
    }
  });

  it("uses another webhook Service name, or a hosts-mode base URL keeping the path", async () => {
    const named = await loadCrdBundle({ kind: "path", path: FIXTURE_CRDS }, release, {
      webhook: { namespace: "ns1", serviceName: "hooks" },
    });
    expect(widgets(named).spec.conversion.webhook.clientConfig.url).toBe("https://hooks.ns1.svc:443/convert");
    const hosts = await loadCrdBundle({ kind: "path", path: FIXTURE_CRDS }, release, {
      webhook: { namespace: "ns1", baseUrl: "https://10.0.0.5:8443" },
    });
    expect(widgets(hosts).spec.conversion.webhook.clientConfig.url).toBe("https://10.0.0.5:8443/convert");
  });

  it("checks a given sha256 against a local tarball", async () => {
    const file = await tarball(FIXTURE_CRDS);
    await expect(
      loadCrdBundle({ kind: "path", path: file, sha256: fileSha256(file) }, release, { webhook }),
    ).resolves.toBeDefined();
    const wrong = "0".repeat(64);
    await expect(
      loadCrdBundle({ kind: "path", path: file, sha256: wrong }, release, { webhook }),
    ).rejects.toThrow(`sha256 mismatch for ${file}: expected ${wrong}, got ${fileSha256(file)}`);
  });

  it("fails clearly on a missing path, a tarball without bases, and a non-tarball", async () => {
    const missing = `${tempDir()}/nope.tar.gz`;
    await expect(loadCrdBundle({ kind: "path", path: missing }, release, { webhook })).rejects.toThrow(
      `CRD bundle ${missing} does not exist (expected a crds.tar.gz or a directory)`,
    );
    const noBases = await tarball(FIXTURE_CRDS, ["patches"]);
    await expect(loadCrdBundle({ kind: "path", path: noBases }, release, { webhook })).rejects.toThrow(
      `${noBases} has no crds/bases directory with CRD YAML files`,
    );
    const garbage = `${tempDir()}/crds.tar.gz`;
    writeFileSync(garbage, "this is not a tarball at all, just text ".repeat(40));
    await expect(loadCrdBundle({ kind: "path", path: garbage }, release, { webhook })).rejects.toThrow(
      CrdBundleError,
    );
    await expect(loadCrdBundle({ kind: "path", path: garbage }, release, { webhook })).rejects.toThrow(
      `cannot read the CRD tarball ${garbage}`,
    );
  });

  const gadgetsCrd = fixtureYaml("bases/toys/example.io_gadgets.yaml").split("---\n")[2];
  const widgetsPatch = fixtureYaml("patches/webhook_in_widgets.yaml");
  it.each([
    [
      "a patch whose CRD is missing",
      { "crds/bases/a.yaml": gadgetsCrd, "crds/patches/p.yaml": widgetsPatch },
      (dir: string) =>
        `patch crds/patches/p.yaml in ${dir} targets CRD widgets.example.io, which is not in its bases`,
    ],
    [
      "an unknown template variable",
      {
        "crds/bases/a.yaml": gadgetsCrd,
        "crds/patches/p.yaml": widgetsPatch
          .replace("widgets.example.io", "gadgets.example.io")
          .replace(":443", ":{{port}}"),
      },
      (dir: string) => `crds/patches/p.yaml in ${dir}: unknown template variable {{port}}`,
    ],
    [
      "a base that is not a CRD",
      { "crds/bases/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n" },
      (dir: string) =>
        `crds/bases/a.yaml in ${dir} holds something other than an apiextensions.k8s.io/v1 CRD`,
    ],
    [
      "a CRD defined twice",
      { "crds/bases/a.yaml": gadgetsCrd, "crds/bases/b.yaml": gadgetsCrd },
      (dir: string) => `CRD gadgets.example.io is defined twice in ${dir} (again in crds/bases/b.yaml)`,
    ],
  ])("rejects %s", async (_, files, message) => {
    const dir = bundleDir(files);
    await expect(loadCrdBundle({ kind: "path", path: dir }, release, { webhook })).rejects.toThrow(
      CrdBundleError,
    );
    await expect(loadCrdBundle({ kind: "path", path: dir }, release, { webhook })).rejects.toThrow(
      message(dir),
    );
  });
});

describe("loadCrdBundle from a URL (loopback server)", () => {
  let server: TestServer;
  let file: string;

  beforeAll(async () => {
    file = await tarball(FIXTURE_CRDS);
    server = await serve({
      "/crds.tar.gz": { status: 200, body: readFileSync(file) },
      "/latest": { status: 302, location: "/crds.tar.gz" },
    });
  });
  afterAll(() => server.close());

  it("downloads once, following redirects, then serves the cache", async () => {
    const cacheDir = tempDir();
    const source = { kind: "url", url: server.url("/latest") } as const;
    const first = await loadCrdBundle(source, release, { cacheDir, webhook });
    expect(first).toMatchObject({ source: source.url, sha256: fileSha256(file), fromCache: false });
    expect(crdNames(first)).toEqual(["gadgets.example.io", "gizmos.example.io", "widgets.example.io"]);
    const hits = server.hits.get("/crds.tar.gz");
    const second = await loadCrdBundle(source, release, { cacheDir, webhook });
    expect(second.fromCache).toBe(true);
    expect(second.crds).toEqual(first.crds);
    expect(server.hits.get("/crds.tar.gz")).toBe(hits);
    expect(readFileSync(cachePath(cacheDir, source.url))).toEqual(readFileSync(file));
  });

  it("rejects a download whose sha256 differs, and caches nothing", async () => {
    const cacheDir = tempDir();
    const url = server.url("/crds.tar.gz");
    const wrong = "f".repeat(64);
    await expect(
      loadCrdBundle({ kind: "url", url, sha256: wrong }, release, { cacheDir, webhook }),
    ).rejects.toThrow(`sha256 mismatch for ${url}: expected ${wrong}, got ${fileSha256(file)}`);
    await expect(
      loadCrdBundle({ kind: "url", url, sha256: fileSha256(file) }, release, { cacheDir, webhook }),
    ).resolves.toMatchObject({
      fromCache: false,
    });
  });

  it("replaces a corrupt cached file when a sha256 is given", async () => {
    const cacheDir = tempDir();
    const url = server.url("/crds.tar.gz");
    await loadCrdBundle({ kind: "url", url }, release, { cacheDir, webhook });
    writeFileSync(cachePath(cacheDir, url), "corrupt");
    const healed = await loadCrdBundle({ kind: "url", url, sha256: fileSha256(file) }, release, {
      cacheDir,
      webhook,
    });
    expect(healed.fromCache).toBe(false);
    expect(readFileSync(cachePath(cacheDir, url))).toEqual(readFileSync(file));
  });

  it("names the URL and the offline settings when the server answers 404", async () => {
    const url = server.url("/v9.9.9/crds.tar.gz");
    await expect(
      loadCrdBundle({ kind: "url", url }, release, { cacheDir: tempDir(), webhook }),
    ).rejects.toThrow(
      new RegExp(
        `^cannot download Karmada CRDs from ${url}: HTTP 404 .*mirror \\(\\{kind: "url", url\\}\\).*\\{kind: "path", path\\}`,
      ),
    );
  });

  it("names the URL and the offline settings when nothing listens", async () => {
    const closed = await serve({});
    const url = closed.url("/crds.tar.gz");
    await closed.close();
    await expect(
      loadCrdBundle({ kind: "url", url }, release, { cacheDir: tempDir(), webhook }),
    ).rejects.toThrow(new RegExp(`^cannot download Karmada CRDs from ${url}: .*ECONNREFUSED.*mirror`));
  });
});

describe("defaultCrdCacheDir", () => {
  const saved = process.env.PULUMI_KARMADA_CACHE;
  afterEach(() => {
    if (saved === undefined) delete process.env.PULUMI_KARMADA_CACHE;
    else process.env.PULUMI_KARMADA_CACHE = saved;
  });

  it("lives under PULUMI_KARMADA_CACHE when set, else under ~/.cache/pulumi-karmada", () => {
    process.env.PULUMI_KARMADA_CACHE = "/var/cache/pk";
    expect(defaultCrdCacheDir()).toBe("/var/cache/pk/crds");
    delete process.env.PULUMI_KARMADA_CACHE;
    expect(defaultCrdCacheDir()).toBe(join(homedir(), ".cache", "pulumi-karmada", "crds"));
  });
});
