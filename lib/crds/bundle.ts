import type { KubeObject } from "../kube/object";
import { parseYamlDocuments } from "../kube/yamlDocuments";
import { objectNames } from "../controlplane/names";
import { PLACEHOLDERS } from "../manifests/placeholders";
import { normalizeWebhookBaseUrl } from "../manifests/karmada/webhooks";
import { BundleFiles } from "./archive";
import { CrdBundleError } from "./errors";

/** Where the CRD conversion webhooks (karmada-webhook's `/convert`) are reached from karmada-apiserver. */
export interface ConversionWebhookTarget {
  /** Host-cluster namespace of the karmada-webhook Service. */
  readonly namespace: string;
  /** @default "karmada-webhook" */
  readonly serviceName?: string;
  /**
   * Replaces scheme, host and port of each conversion URL, keeping its path (hosts mode, e.g.
   * `https://10.0.0.5:8443`). @default - the Service DNS name the patch builds
   */
  readonly baseUrl?: string;
}

/** Karmada's CRDs, ready to apply: conversion patches applied, sorted by name. */
export interface CrdBundle {
  /** The CRDs, sorted by name; conversion `caBundle`s hold the CA placeholder. */
  readonly crds: KubeObject[];
  /** URL or path the bundle was read from. */
  readonly source: string;
  /** sha256 of the tarball. @default - absent for a directory */
  readonly sha256?: string;
  /** Whether a download was served from the cache. */
  readonly fromCache: boolean;
  /** Whether the parsed YAML came from the cache (these exact bytes were parsed before). */
  readonly parsedFromCache: boolean;
}

/** Names of the CRDs in a bundle, sorted. */
export const crdNames = (bundle: Pick<CrdBundle, "crds">): string[] =>
  bundle.crds.map((crd) => crd.metadata.name).sort();

/** Finds the bundle root: the shortest prefix ("" or ending in "/") under which `bases/` holds YAML. */
function bundleRoot(files: BundleFiles, source: string): string {
  const roots = [...files.keys()]
    .map((path) => /^(.*?)bases\/.+\.ya?ml$/.exec(path)?.[1])
    .filter((root): root is string => root !== undefined && (root === "" || root.endsWith("/")))
    .sort((a, b) => a.length - b.length);
  if (roots.length === 0) {
    throw new CrdBundleError(source, `${source} has no crds/bases directory with CRD YAML files`);
  }
  return roots[0];
}

function parseYaml(text: string, file: string, source: string): Record<string, unknown>[] {
  const docs = parseYamlDocuments(
    text,
    ({ reason, line }) =>
      new CrdBundleError(source, `${file} in ${source} is not valid YAML (line ${line}): ${reason}`),
  );
  return docs as Record<string, unknown>[];
}

function asCrd(doc: Record<string, unknown>, file: string, source: string): KubeObject {
  const name = (doc.metadata as { name?: unknown } | undefined)?.name;
  if (
    doc.kind !== "CustomResourceDefinition" ||
    doc.apiVersion !== "apiextensions.k8s.io/v1" ||
    typeof name !== "string"
  ) {
    throw new CrdBundleError(
      source,
      `${file} in ${source} holds something other than an apiextensions.k8s.io/v1 CRD`,
    );
  }
  return doc as unknown as KubeObject;
}

/** Replaces `{{key}}` in every string of a patch; an unknown key is an error. */
function fillTemplate(value: unknown, values: Record<string, string>, where: string): unknown {
  if (typeof value === "string") {
    return value.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_, key: string) => {
      if (!(key in values)) throw new Error(`${where}: unknown template variable {{${key}}}`);
      return values[key];
    });
  }
  if (Array.isArray(value)) return value.map((item) => fillTemplate(item, values, where));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillTemplate(v, values, where)]));
  }
  return value;
}

/** JSON merge patch (RFC 7386): objects merge, `null` deletes, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target !== null && typeof target === "object" && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

type ConversionPatch = { spec?: { conversion?: { webhook?: { clientConfig?: { url?: unknown } } } } };

/** Points a conversion webhook URL at `baseUrl`, keeping its path. */
function rebaseConversionUrl(patch: Record<string, unknown>, baseUrl: string): Record<string, unknown> {
  const url = (patch as ConversionPatch).spec?.conversion?.webhook?.clientConfig?.url;
  if (typeof url !== "string") return patch;
  const rebased = {
    spec: { conversion: { webhook: { clientConfig: { url: `${baseUrl}${new URL(url).pathname}` } } } },
  };
  return mergePatch(patch, rebased) as Record<string, unknown>;
}

/** One YAML file of a bundle, parsed: its path and its non-empty documents. */
export interface ParsedBundleFile {
  readonly file: string;
  readonly docs: Record<string, unknown>[];
}

/**
 * A bundle's YAML, parsed but not yet checked or patched: what parsing costs (≈ 80 ms for Karmada's
 * 0.7 MB on a cold process), so it is what the parsed-bundle cache keeps. Files sorted by path.
 */
export interface ParsedBundle {
  /** `<root>/bases/**` */
  readonly bases: ParsedBundleFile[];
  /** `<root>/patches/**` */
  readonly patches: ParsedBundleFile[];
}

/** Parses the YAML files under `<root>/bases/` and `<root>/patches/`; a syntax error names the file. */
export function parseCrdBundle(files: BundleFiles, source: string): ParsedBundle {
  const root = bundleRoot(files, source);
  const parsedUnder = (dir: string): ParsedBundleFile[] =>
    [...files.keys()]
      .filter((path) => path.startsWith(`${root}${dir}/`) && /\.ya?ml$/.test(path))
      .sort()
      .map((file) => ({ file, docs: parseYaml(files.get(file)!.toString("utf8"), file, source) }));
  return { bases: parsedUnder("bases"), patches: parsedUnder("patches") };
}

/**
 * Checks the parsed CRDs and applies the conversion patches (templates `{{name}}`, `{{namespace}}`,
 * `{{caBundle}}` → webhook Service name, its namespace, and {@link PLACEHOLDERS.caBundle}). Each patch is
 * merged into the CRD its `metadata.name` names.
 */
export function assembleCrdBundle(
  parsed: ParsedBundle,
  source: string,
  webhook: ConversionWebhookTarget,
): CrdBundle["crds"] {
  const crds = new Map<string, KubeObject>();
  for (const { file, docs } of parsed.bases) {
    for (const doc of docs) {
      const crd = asCrd(doc, file, source);
      if (crds.has(crd.metadata.name)) {
        throw new CrdBundleError(
          source,
          `CRD ${crd.metadata.name} is defined twice in ${source} (again in ${file})`,
        );
      }
      crds.set(crd.metadata.name, crd);
    }
  }

  const values = {
    name: webhook.serviceName ?? objectNames.workload("karmada-webhook"),
    namespace: webhook.namespace,
    caBundle: PLACEHOLDERS.caBundle,
  };
  const baseUrl =
    webhook.baseUrl === undefined ? undefined : normalizeWebhookBaseUrl(webhook.baseUrl, "webhook.baseUrl");
  for (const { file, docs } of parsed.patches) {
    for (const doc of docs) {
      let patch: Record<string, unknown>;
      try {
        patch = fillTemplate(doc, values, `${file} in ${source}`) as Record<string, unknown>;
      } catch (err) {
        throw new CrdBundleError(source, (err as Error).message);
      }
      if (baseUrl) patch = rebaseConversionUrl(patch, baseUrl);
      const name = (patch.metadata as { name?: string } | undefined)?.name;
      const target = name === undefined ? undefined : crds.get(name);
      if (!target) {
        throw new CrdBundleError(
          source,
          `patch ${file} in ${source} targets CRD ${name}, which is not in its bases`,
        );
      }
      crds.set(target.metadata.name, mergePatch(target, patch) as KubeObject);
    }
  }
  return [...crds.values()].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}
