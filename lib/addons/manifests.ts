import { readFileSync } from "node:fs";
import type { KubeObject } from "../kube/object";
import { parseYamlDocuments } from "../kube/yamlDocuments";
import { ConfigError, check, show } from "../validation/errors";
import { ManifestSource } from "./config";

/** Kinds applied first: everything else may live in them or be one of their instances. */
const FOUNDATION_KINDS = new Set(["Namespace", "CustomResourceDefinition"]);

function checkObject(obj: unknown, field: string): KubeObject {
  const o = obj as KubeObject;
  check(!!o && typeof o === "object" && !Array.isArray(o), field, "is not an object", "a Kubernetes object");
  check(
    typeof o.apiVersion === "string" && o.apiVersion !== "",
    `${field}.apiVersion`,
    "is missing",
    "e.g. v1, apps/v1",
  );
  check(typeof o.kind === "string" && o.kind !== "", `${field}.kind`, "is missing", "e.g. ConfigMap");
  check(
    typeof o.metadata?.name === "string" && o.metadata.name !== "",
    `${field}.metadata.name`,
    "is missing",
    "a name (generateName is not supported)",
  );
  return o;
}

function parseYaml(text: string, field: string): unknown[] {
  const docs = parseYamlDocuments(
    text,
    ({ reason, line, document }) =>
      new ConfigError(`${field}[${document}]`, `is not valid YAML (line ${line}): ${reason}`),
  );
  // a List kind wraps items
  return docs.flatMap((value) => {
    const list = value as { kind?: unknown; items?: unknown };
    return list.kind === "List" && Array.isArray(list.items) ? list.items : [value];
  });
}

/**
 * Every object of a manifest source, checked (apiVersion, kind, metadata.name), in source order:
 * `objects`, then the documents of `yaml`, then each file's documents. `readFile` is injectable.
 */
export function loadManifests(
  source: ManifestSource,
  readFile: (path: string) => string = (p) => readFileSync(p, "utf8"),
): KubeObject[] {
  const out: KubeObject[] = [];
  (source.objects ?? []).forEach((o, i) => out.push(checkObject(o, `manifests.objects[${i}]`)));
  if (source.yaml)
    parseYaml(source.yaml, "manifests.yaml").forEach((o, i) =>
      out.push(checkObject(o, `manifests.yaml[${i}]`)),
    );
  (source.files ?? []).forEach((path, f) => {
    let text: string;
    try {
      text = readFile(path);
    } catch (e) {
      throw new ConfigError(`manifests.files[${f}]`, `cannot read ${show(path)}: ${(e as Error).message}`);
    }
    parseYaml(text, `manifests.files[${f}]`).forEach((o, i) =>
      out.push(checkObject(o, `manifests.files[${f}][${i}]`)),
    );
  });
  const keys = out.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`);
  const dup = keys.findIndex((k, i) => keys.indexOf(k) !== i);
  check(dup < 0, "manifests", `object ${show(keys[dup])} is given twice`, "each object once");
  return out;
}

/** Splits objects into install phases: namespaces and CRDs, then Secrets, then the rest. */
export function manifestPhases(objects: readonly KubeObject[]): {
  foundation: KubeObject[];
  secrets: KubeObject[];
  rest: KubeObject[];
} {
  return {
    foundation: objects.filter((o) => FOUNDATION_KINDS.has(o.kind)),
    secrets: objects.filter((o) => o.kind === "Secret"),
    rest: objects.filter((o) => !FOUNDATION_KINDS.has(o.kind) && o.kind !== "Secret"),
  };
}

/** A manifest Secret's content as plain strings (`data` base64-decoded, `stringData` as is). */
export function secretStrings(obj: KubeObject): Record<string, string> {
  const data = (obj.data ?? {}) as Record<string, string>;
  const stringData = (obj.stringData ?? {}) as Record<string, string>;
  return {
    ...Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
    ),
    ...stringData,
  };
}
