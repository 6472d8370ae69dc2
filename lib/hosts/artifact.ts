import { check, show } from "../validation/errors";
import { SAFE_PATH, rooted, shq } from "./shell";

/**
 * Where a host gets a program's binaries. Exactly one of `url` / `path`; neither means the upstream
 * release URL. Downloads are always checked against `sha256`.
 */
export interface ArtifactSource {
  /** Release tarball URL (upstream or a mirror). Requires `sha256`. */
  url?: string;
  /** Directory holding the binaries, or a `.tar.gz`, already on the host (relative to its root). */
  path?: string;
  /** Hex SHA-256 of the tarball; required for URLs, checked for `.tar.gz` paths when given. */
  sha256?: string;
}

/** An artifact source after defaults and validation. */
export type ResolvedArtifact =
  | {
      /** Downloaded from `url`. */
      readonly kind: "url";
      /** Tarball URL: the given one, or the upstream release. */
      readonly url: string;
      /** Hex SHA-256 the download must match. */
      readonly sha256: string;
    }
  | {
      /** Already on the host at `path`. */
      readonly kind: "path";
      /** Directory or `.tar.gz` on the host (relative to its root). */
      readonly path: string;
      /** Hex SHA-256 a `.tar.gz` is checked against. @default - not checked */
      readonly sha256?: string;
    };

const SHA256 = /^[0-9a-f]{64}$/;
const URL_FORM = /^https?:\/\/[A-Za-z0-9._~:/?#[\]@!$&'()*+,;=%-]+$/;

/**
 * Validates an artifact source; `defaultUrl` is the upstream release used when neither url nor path is
 * set, `field` the dotted path for messages.
 */
export function resolveArtifact(
  source: ArtifactSource | undefined,
  defaultUrl: string,
  field: string,
): ResolvedArtifact {
  const given = source ?? {};
  check(!(given.url && given.path), field, "set either url or path, not both");
  if (given.sha256 !== undefined) {
    check(
      SHA256.test(given.sha256),
      `${field}.sha256`,
      `${show(given.sha256)} is not a hex SHA-256`,
      "64 lower-case hex digits",
    );
  }
  if (given.path !== undefined) {
    check(
      SAFE_PATH.test(given.path),
      `${field}.path`,
      `${show(given.path)} is not a safe absolute path`,
      "/[A-Za-z0-9._+@/-]*",
    );
    check(
      !given.path.split("/").includes(".."),
      `${field}.path`,
      `${show(given.path)} climbs out with ".."`,
      "a path without .. segments",
    );
    return { kind: "path", path: given.path, sha256: given.sha256 };
  }
  const url = given.url ?? defaultUrl;
  check(URL_FORM.test(url), `${field}.url`, `${show(url)} is not an http(s) URL`);
  check(
    given.sha256 !== undefined,
    `${field}.sha256`,
    `is required to verify the download of ${url}`,
    "64 lower-case hex digits",
  );
  return { kind: "url", url, sha256: given.sha256 };
}

/** What to install from an artifact. */
export interface BinaryInstall {
  /** Label for messages and the marker file, e.g. `etcd-v3.5.21`. */
  readonly label: string;
  /** Binaries that must be present in the artifact. */
  readonly required: readonly string[];
  /** Binaries installed when present (e.g. `etcdutl`, absent from etcd 3.4). */
  readonly optional: readonly string[];
  /** Host filesystem root. */
  readonly root: string;
  /** Absolute directory (before rooting) the binaries go to. */
  readonly binDir: string;
  /** Absolute directory (before rooting) downloads are cached in. */
  readonly cacheDir: string;
}

/**
 * Bash that installs binaries from `artifact`: download once into the cache (verified by SHA-256),
 * unpack, and atomically replace each binary (moved from the unpacked tarball or copied from a host
 * directory, then renamed into place, so a running binary is never written to).
 * Re-running with the same source is a no-op thanks to a marker file.
 */
export function installBinariesBody(artifact: ResolvedArtifact, install: BinaryInstall): string {
  const binDir = rooted(install.root, install.binDir);
  const cacheDir = rooted(install.root, install.cacheDir);
  const identity =
    artifact.kind === "url" ? `url ${artifact.url} sha256 ${artifact.sha256}` : `path ${artifact.path}`;
  const names = [...install.required, ...install.optional];
  const copy = [
    `work=$(mktemp -d "\${cache_dir}/unpack.XXXXXX")`,
    ...sourceLines(artifact, install),
    `for b in ${names.map(shq).join(" ")}; do`,
    `  found=$(find "\${src_dir}" -maxdepth 2 -type f -name "\${b}" | head -n 1)`,
    `  if [ -z "\${found}" ]; then`,
    `    case "\${required}" in *" \${b} "*) rm -rf "\${work}"; pk_fail "artifact has no \${b} binary";; esac`,
    `    continue`,
    `  fi`,
    `  if cmp -s "\${found}" "\${bin_dir}/\${b}"; then continue; fi`,
    // an unpacked tarball is ours to move from; a directory on the host is copied
    `  if [ "\${src_dir}" = "\${work}" ]; then mv -f "\${found}" "\${bin_dir}/.\${b}.new"; else cp "\${found}" "\${bin_dir}/.\${b}.new"; fi`,
    `  chmod 0755 "\${bin_dir}/.\${b}.new" && mv -f "\${bin_dir}/.\${b}.new" "\${bin_dir}/\${b}"`,
    `done`,
    `rm -rf "\${work}"`,
    `printf '%s' "\${identity}" > "\${marker}"`,
    `echo "installed ${install.label} into \${bin_dir}"`,
  ];
  const header = [
    `bin_dir=${shq(binDir)}`,
    `cache_dir=${shq(cacheDir)}`,
    `marker="\${bin_dir}/.pulumi-karmada-${install.label}"`,
    `identity=${shq(identity)}`,
    `required=${shq(` ${install.required.join(" ")} `)}`,
    `mkdir -p "\${bin_dir}" "\${cache_dir}" || pk_fail "cannot create \${bin_dir} or \${cache_dir}"`,
  ];
  // A path source may change under the same path, so only downloads are trusted to the marker;
  // path sources are compared file by file (cmp) instead.
  const lines =
    artifact.kind === "url"
      ? [
          ...header,
          `all_present=yes`,
          `for b in ${install.required.map(shq).join(" ")}; do [ -x "\${bin_dir}/\${b}" ] || all_present=no; done`,
          `if [ "\${all_present}" = yes ] && [ -f "\${marker}" ] && [ "$(cat "\${marker}")" = "\${identity}" ]; then`,
          `  echo "${install.label} already installed in \${bin_dir}"`,
          `else`,
          ...copy.map((l) => `  ${l}`),
          `fi`,
        ]
      : [...header, ...copy];
  return lines.join("\n");
}

/** Lines that leave the unpacked binaries under `${src_dir}` (inside `${work}`). */
function sourceLines(artifact: ResolvedArtifact, install: BinaryInstall): string[] {
  const label = install.label;
  if (artifact.kind === "url") {
    return [
      `tarball="\${cache_dir}/${label}-${artifact.sha256}.tar.gz"`,
      `if ! echo ${shq(`${artifact.sha256}  `)}"\${tarball}" | sha256sum -c --status 2>/dev/null; then`,
      `  command -v curl >/dev/null || pk_fail "curl is not installed"`,
      `  curl -fsSL --retry 3 --connect-timeout 10 -o "\${tarball}.part" ${shq(artifact.url)} || { rm -f "\${tarball}.part"; pk_fail ${shq(`download of ${artifact.url} failed`)}; }`,
      `  echo ${shq(`${artifact.sha256}  `)}"\${tarball}.part" | sha256sum -c --status || { rm -f "\${tarball}.part"; pk_fail ${shq(`sha256 of ${artifact.url} does not match ${artifact.sha256}`)}; }`,
      `  mv -f "\${tarball}.part" "\${tarball}"`,
      `fi`,
      `tar -xzf "\${tarball}" -C "\${work}" || pk_fail "cannot unpack \${tarball}"`,
      `src_dir="\${work}"`,
    ];
  }
  const checksum = artifact.sha256
    ? [
        `  echo ${shq(`${artifact.sha256}  `)}"\${src}" | sha256sum -c --status || pk_fail "sha256 of \${src} does not match ${artifact.sha256}"`,
      ]
    : [];
  return [
    `src=${shq(rooted(install.root, artifact.path))}`,
    `if [ -d "\${src}" ]; then`,
    `  src_dir="\${src}"`,
    `elif [ -f "\${src}" ]; then`,
    ...checksum,
    `  tar -xzf "\${src}" -C "\${work}" || pk_fail "cannot unpack \${src}"`,
    `  src_dir="\${work}"`,
    `else`,
    `  pk_fail "artifact path \${src} does not exist"`,
    `fi`,
  ];
}
