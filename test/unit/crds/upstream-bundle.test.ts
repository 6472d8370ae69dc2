import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { findRelease } from "../../../lib/catalog";
import { CrdBundle, crdNames, loadCrdBundle } from "../../../lib/crds";
import { parseYamlDocuments } from "../../../lib/kube/yamlDocuments";
import { findPlaceholders, PLACEHOLDERS } from "../../../lib/manifests/placeholders";
import { KARMADA_MODULE, describeUpstream, upstreamModuleDir } from "../../support/upstream";
import { removeTempDirs, tarball } from "./fixtures";

const release = findRelease(KARMADA_MODULE.version);
/** The release's CRDs in the upstream module: what its crds.tar.gz is made of. */
const chartCrds = () => join(upstreamModuleDir(KARMADA_MODULE), "charts/karmada/_crds");

describeUpstream(`upstream ${release.version} CRD bundle`, [KARMADA_MODULE], () => {
  let bundle: CrdBundle;
  beforeAll(async () => {
    // laid out like the release asset crds.tar.gz: crds/{bases,patches}
    const path = await tarball(chartCrds());
    bundle = await loadCrdBundle({ kind: "path", path }, release, {
      webhook: { namespace: "karmada-host" },
    });
  });
  afterAll(removeTempDirs);

  it.each(["resourcebindings.work.karmada.io", "clusterresourcebindings.work.karmada.io"])(
    "%s converts through karmada-webhook with our CA placeholder",
    (name) => {
      const crd = bundle.crds.find((c) => c.metadata.name === name) as any;
      expect(crd.spec.conversion.strategy).toBe("Webhook");
      expect(crd.spec.conversion.webhook.clientConfig).toEqual({
        url: "https://karmada-webhook.karmada-host.svc:443/convert",
        caBundle: PLACEHOLDERS.caBundle,
      });
      expect(crd.spec.versions.length).toBeGreaterThan(1);
    },
  );

  it("parses every upstream CRD file to the values the yaml package gives", () => {
    const bases = join(chartCrds(), "bases");
    const files = readdirSync(bases, { recursive: true, encoding: "utf8" }).filter((f) => /\.ya?ml$/.test(f));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(join(bases, file), "utf8");
      const expected = parseAllDocuments(text).map((doc) => doc.toJS());
      expect(parseYamlDocuments(text, () => new Error(file))).toEqual(expected);
    }
  });

  it("has no cluster.karmada.io CRD: Cluster is an aggregated API", () => {
    expect(bundle.crds.filter((c) => (c as any).spec.group === "cluster.karmada.io")).toEqual([]);
    expect(crdNames(bundle)).not.toContain("clusters.cluster.karmada.io");
  });

  it("leaves placeholders only in the two patched CRDs", () => {
    const placeholderCrds = new Set(
      bundle.crds.filter((crd) => findPlaceholders(crd).length > 0).map((crd) => crd.metadata.name),
    );
    expect([...placeholderCrds].sort()).toEqual([
      "clusterresourcebindings.work.karmada.io",
      "resourcebindings.work.karmada.io",
    ]);
  });

  it("holds exactly the CRDs upstream's kustomization lists", () => {
    const kustomization = parse(readFileSync(join(chartCrds(), "kustomization.yaml"), "utf8")) as {
      resources: string[];
    };
    const expected = kustomization.resources.map((file) => {
      const [, group, plural] = /([^/]+)_([^/_]+)\.yaml$/.exec(file)!;
      return `${plural}.${group}`;
    });
    expect(crdNames(bundle)).toEqual(expected.sort());
  });
});
