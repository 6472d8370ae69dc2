import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { findRelease } from "../../../lib/catalog";
import { CrdBundle, crdNames, loadCrdBundle } from "../../../lib/crds";
import { findPlaceholders, PLACEHOLDERS } from "../../../lib/manifests/placeholders";
import { removeTempDirs, tarball } from "./fixtures";
import { upstreamKarmadaDir } from "./upstream";

const release = findRelease("v1.18.2");
const cacheRoot = process.env.PULUMI_KARMADA_CACHE || join(homedir(), ".cache", "pulumi-karmada");
/** Where the test bed stores the release's real crds.tar.gz. */
const testbedTarball = join(cacheRoot, "testbed", `karmada-${release.version}`, "crds.tar.gz");
const moduleDir = upstreamKarmadaDir(release.version);
const chartCrds = moduleDir && join(moduleDir, "charts/karmada/_crds");

/** The real bundle: the test bed's download, else the same layout built from the upstream module. */
async function upstreamTarball(): Promise<string> {
  return existsSync(testbedTarball) ? testbedTarball : tarball(chartCrds!);
}

(existsSync(testbedTarball) || chartCrds ? describe : describe.skip)(
  `upstream ${release.version} CRD bundle`,
  () => {
    let bundle: CrdBundle;
    beforeAll(async () => {
      bundle = await loadCrdBundle({ kind: "path", path: await upstreamTarball() }, release, {
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

    it("has no cluster.karmada.io CRD: Cluster is an aggregated API", () => {
      expect(bundle.crds.filter((c) => (c as any).spec.group === "cluster.karmada.io")).toEqual([]);
      expect(crdNames(bundle)).not.toContain("clusters.cluster.karmada.io");
    });

    it("leaves placeholders only in the two patched CRDs", () => {
      const placeholderCrds = new Set(
        findPlaceholders(bundle.crds).map(
          (u) => bundle.crds[Number(/^\[(\d+)\]/.exec(u.path)![1])].metadata.name,
        ),
      );
      expect([...placeholderCrds].sort()).toEqual([
        "clusterresourcebindings.work.karmada.io",
        "resourcebindings.work.karmada.io",
      ]);
    });

    (chartCrds ? it : it.skip)("holds exactly the CRDs upstream's kustomization lists", () => {
      const kustomization = parse(readFileSync(join(chartCrds!, "kustomization.yaml"), "utf8")) as {
        resources: string[];
      };
      const expected = kustomization.resources.map((file) => {
        const [, group, plural] = /([^/]+)_([^/_]+)\.yaml$/.exec(file)!;
        return `${plural}.${group}`;
      });
      expect(crdNames(bundle)).toEqual(expected.sort());
    });
  },
);
