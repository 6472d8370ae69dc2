import { ConfigError } from "../validation/errors";

/** What one Karmada release is built and tested with. */
export interface KarmadaRelease {
  /** Karmada release tag, e.g. `v1.18.2`. */
  readonly version: string;
  /** kube-apiserver / kube-controller-manager version the release pairs with. */
  readonly kubernetesVersion: string;
  /** etcd server version (also the etcd image tag without the `-0` build suffix). */
  readonly etcdVersion: string;
  /** URL of the release's published CRD tarball. */
  readonly crdTarballUrl: string;
}

const release = (version: string, kubernetesVersion: string, etcdVersion: string): KarmadaRelease => ({
  version,
  kubernetesVersion,
  etcdVersion,
  crdTarballUrl: `https://github.com/karmada-io/karmada/releases/download/${version}/crds.tar.gz`,
});

/**
 * Supported releases, newest first. The pairing follows upstream's install tooling for each minor
 * (karmadactl init defaults): v1.16 ships with kube 1.34, v1.17 and v1.18 with kube 1.35.
 */
export const RELEASES: readonly KarmadaRelease[] = [
  release("v1.18.2", "v1.35.2", "3.5.21"),
  release("v1.17.1", "v1.35.2", "3.5.21"),
  release("v1.16.0", "v1.34.1", "3.5.21"),
];

/** The default: the newest stable release in the catalog. */
export const DEFAULT_KARMADA_VERSION = RELEASES[0].version;

/** Looks up a release; an unknown version is a {@link ConfigError} listing the supported ones. */
export function findRelease(version: string, field = "karmadaVersion"): KarmadaRelease {
  const found = RELEASES.find((r) => r.version === version);
  if (!found) {
    throw new ConfigError(
      field,
      `unknown Karmada version ${JSON.stringify(version)}`,
      RELEASES.map((r) => r.version).join(", "),
    );
  }
  return found;
}
