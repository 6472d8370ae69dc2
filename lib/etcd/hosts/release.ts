/** etcd release we install by default. Its modules are also what the test bed builds. */
export const DEFAULT_ETCD_VERSION = "v3.5.21";

/**
 * SHA-256 of upstream linux-amd64 release tarballs we know, so the default source needs no input.
 * Other versions require `artifact.sha256` (from the release's SHA256SUMS).
 */
const KNOWN_SHA256: Readonly<Record<string, string>> = {
  "v3.5.21": "adddda4b06718e68671ffabff2f8cee48488ba61ad82900e639d108f2148501c",
};

/** Upstream GitHub release tarball of `version` for linux-amd64. */
export function etcdReleaseUrl(version: string): string {
  return `https://github.com/etcd-io/etcd/releases/download/${version}/etcd-${version}-linux-amd64.tar.gz`;
}

/** The known checksum of `version`'s upstream tarball, if any. */
export function knownEtcdSha256(version: string): string | undefined {
  return KNOWN_SHA256[version];
}
