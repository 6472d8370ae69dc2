import { KarmadaRelease } from "../catalog/releases";
import { check, show } from "../validation/errors";

/**
 * Where the Karmada CRDs come from:
 * - `release` — the release's published `crds.tar.gz` (needs internet access);
 * - `url` — the same tarball on a mirror (offline installs);
 * - `path` — a local tarball, or a directory holding `crds/bases` (or `bases` directly).
 * `sha256` (hex), when given, is checked against the downloaded or local tarball.
 */
export type CrdSource =
  | { readonly kind: "release"; readonly sha256?: string }
  | { readonly kind: "url"; readonly url: string; readonly sha256?: string }
  | { readonly kind: "path"; readonly path: string; readonly sha256?: string };

/** A source reduced to what is read: a URL to download or a local path. */
export type ResolvedCrdSource =
  | { readonly kind: "url"; readonly url: string; readonly sha256?: string }
  | { readonly kind: "path"; readonly path: string; readonly sha256?: string };

/** Checks a source and turns `release` into the release's tarball URL. `field` names it in errors. */
export function resolveCrdSource(
  source: CrdSource,
  release: KarmadaRelease,
  field = "crds",
): ResolvedCrdSource {
  const kinds = ["release", "url", "path"];
  check(
    kinds.includes(source?.kind),
    `${field}.kind`,
    `${show(source?.kind)} is not a CRD source kind`,
    kinds.join(", "),
  );
  if (source.sha256 !== undefined) {
    check(
      /^[0-9a-f]{64}$/i.test(source.sha256),
      `${field}.sha256`,
      `${show(source.sha256)} is not a sha256 digest`,
      "64 hex digits",
    );
  }
  const sha256 = source.sha256?.toLowerCase();
  if (source.kind === "path") {
    check(
      typeof source.path === "string" && source.path.length > 0,
      `${field}.path`,
      "empty path",
      "a tarball or directory path",
    );
    return { kind: "path", path: source.path, sha256 };
  }
  const url = source.kind === "release" ? release.crdTarballUrl : source.url;
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  check(
    protocol === "http:" || protocol === "https:",
    `${field}.url`,
    `${show(url)} is not an http(s) URL`,
    "http://… or https://…",
  );
  return { kind: "url", url, sha256 };
}

/** Human-readable name of a resolved source, for messages. */
export const describeSource = (source: ResolvedCrdSource): string =>
  source.kind === "url" ? source.url : source.path;
