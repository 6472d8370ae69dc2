import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { KarmadaRelease } from "../catalog/releases";
import { check, show } from "../validation/errors";

/**
 * Where the Karmada CRDs come from:
 * - `release` — the release's published `crds.tar.gz` (needs internet access);
 * - `url` — the same tarball on a mirror (offline installs);
 * - `path` — a local tarball, or a directory holding `crds/bases` (or `bases` directly).
 * `sha256` (hex), when given, is checked against the downloaded or local tarball. Downloads (by URL) and
 * parsed bundles (by content digest) are cached in `${PULUMI_KARMADA_CACHE:-~/.cache/pulumi-karmada}/crds`.
 */
export type CrdSource =
  | {
      /** The `crds.tar.gz` published with the Karmada release being installed. */
      readonly kind: "release";
      /** Hex SHA-256 the download must match. @default - not checked */
      readonly sha256?: string;
    }
  | {
      /** A copy of the tarball at `url`. */
      readonly kind: "url";
      /** http(s) URL of the tarball. */
      readonly url: string;
      /** Hex SHA-256 the download must match. @default - not checked */
      readonly sha256?: string;
    }
  | {
      /** A tarball or directory on the machine running Pulumi. */
      readonly kind: "path";
      /** Path of a `.tar.gz`, or of a directory holding `crds/bases` (or `bases`). */
      readonly path: string;
      /** Hex SHA-256 a tarball must match. @default - not checked */
      readonly sha256?: string;
    };

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

/** The keys each source kind takes; anything else would be silently ignored, so it is an error. */
const KEYS_BY_KIND: Readonly<Record<CrdSource["kind"], readonly string[]>> = {
  release: ["kind", "sha256"],
  url: ["kind", "url", "sha256"],
  path: ["kind", "path", "sha256"],
};

/**
 * Everything about a CRD source that can be known without the network, checked synchronously so that a
 * bad source stops the program before the first resource registers (the bundle itself loads later,
 * asynchronously): one kind, only that kind's keys, a well-formed URL or digest, and for a local path
 * that it exists, is a directory holding `bases/` or a file (with the sha256, when given, matching).
 */
export function validateCrdSource(
  source: unknown,
  release: KarmadaRelease,
  field = "crds",
): ResolvedCrdSource {
  check(
    typeof source === "object" && source !== null && !Array.isArray(source),
    field,
    `${show(source)} is not a CRD source`,
    '{ kind: "release" }, { kind: "url", url }, { kind: "path", path }',
  );
  const given = source as CrdSource;
  const keys = KEYS_BY_KIND[given.kind] as readonly string[] | undefined;
  if (keys) {
    for (const key of Object.keys(given)) {
      check(
        keys.includes(key),
        `${field}.${key}`,
        `does not apply to kind ${show(given.kind)}`,
        keys.join(", "),
      );
    }
  }
  const resolved = resolveCrdSource(given, release, field);
  if (resolved.kind === "path") checkLocalBundle(resolved, `${field}.path`);
  return resolved;
}

function checkLocalBundle(source: { path: string; sha256?: string }, field: string): void {
  let info: import("node:fs").Stats | undefined;
  try {
    info = statSync(source.path);
  } catch {
    info = undefined;
  }
  check(
    info !== undefined,
    field,
    `${show(source.path)} does not exist on the machine running Pulumi`,
    "a crds.tar.gz or a directory holding crds/bases",
  );
  if (info.isDirectory()) {
    check(
      source.sha256 === undefined,
      field.replace(/path$/, "sha256"),
      `is given, but ${show(source.path)} is a directory; checksums apply to tarballs`,
      "a tarball path, or no sha256",
    );
    check(
      existsSync(join(source.path, "crds", "bases")) || existsSync(join(source.path, "bases")),
      field,
      `${show(source.path)} holds neither crds/bases nor bases`,
      "the root of an extracted crds.tar.gz",
    );
    return;
  }
  check(info.isFile(), field, `${show(source.path)} is neither a file nor a directory`);
  if (source.sha256 !== undefined) {
    const actual = createHash("sha256").update(readFileSync(source.path)).digest("hex");
    check(
      actual === source.sha256,
      field.replace(/path$/, "sha256"),
      `${source.sha256} does not match ${show(source.path)} (its sha256 is ${actual})`,
      "the tarball's sha256sum",
    );
  }
}
