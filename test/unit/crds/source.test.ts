import { findRelease } from "../../../lib/catalog";
import { resolveCrdSource } from "../../../lib/crds/source";
import { ConfigError } from "../../../lib/validation/errors";

const release = findRelease("v1.18.2");
const DIGEST = "ab".repeat(32);

describe("resolveCrdSource", () => {
  it("turns the release source into the release's published tarball URL", () => {
    expect(resolveCrdSource({ kind: "release" }, release)).toEqual({
      kind: "url",
      url: release.crdTarballUrl,
    });
    expect(release.crdTarballUrl).toMatch(/\/v1\.18\.2\/crds\.tar\.gz$/);
  });

  it("keeps mirror URLs and paths, normalizing the digest to lower case", () => {
    const mirror = "http://mirror.local/karmada/crds.tar.gz";
    expect(resolveCrdSource({ kind: "url", url: mirror, sha256: DIGEST.toUpperCase() }, release)).toEqual({
      kind: "url",
      url: mirror,
      sha256: DIGEST,
    });
    expect(resolveCrdSource({ kind: "path", path: "/opt/crds" }, release)).toEqual({
      kind: "path",
      path: "/opt/crds",
    });
  });

  it.each([
    [{ kind: "git" }, 'invalid crds.kind: "git" is not a CRD source kind (allowed: release, url, path)'],
    [
      { kind: "url", url: "ftp://x/crds.tar.gz" },
      'invalid crds.url: "ftp://x/crds.tar.gz" is not an http(s) URL (allowed: http://… or https://…)',
    ],
    [
      { kind: "url", url: "crds.tar.gz" },
      'invalid crds.url: "crds.tar.gz" is not an http(s) URL (allowed: http://… or https://…)',
    ],
    [{ kind: "path", path: "" }, "invalid crds.path: empty path (allowed: a tarball or directory path)"],
    [
      { kind: "release", sha256: "abc" },
      'invalid crds.sha256: "abc" is not a sha256 digest (allowed: 64 hex digits)',
    ],
  ])("rejects %j", (source, message) => {
    expect(() => resolveCrdSource(source as any, release)).toThrow(ConfigError);
    expect(() => resolveCrdSource(source as any, release)).toThrow(message);
  });
});
