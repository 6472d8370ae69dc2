import Ajv, { ErrorObject, ValidateFunction } from "ajv";
import { existsSync, readFileSync } from "fs";
import { join } from "path";
import { KUBERNETES_MODULE, describeUpstream, downloadCommand, upstreamModuleDir } from "./upstream";

/**
 * Validation of synthesized objects against the Kubernetes OpenAPI (swagger 2.0) schema of a target
 * version, read at test time from the `k8s.io/kubernetes` Go module (`api/openapi-spec/swagger.json`,
 * fetched by the unit globalSetup, see ./upstream.ts); it is never copied into the repo. Stricter than a plain JSON-schema check in the ways the API server
 * is: unknown fields are rejected wherever an object lists its properties (the API server's strict field
 * validation), int-or-string and quantity fields accept exactly their two forms, integer formats are
 * range-checked.
 */

/** Kubernetes version the host-cluster manifests target: the default release's pairing. */
export const TARGET_KUBERNETES_VERSION = KUBERNETES_MODULE.version;

/** Override: path of a swagger.json to use instead of the Go module. */
export const SPEC_PATH_ENV = "KUBERNETES_OPENAPI_SPEC";

type Schema = Record<string, unknown>;

const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
// k8s.io/apimachinery/pkg/api/resource serialization grammar (signed number, suffix or exponent).
const QUANTITY_PATTERN =
  "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$";

/** Where the swagger.json of `version` is; throws, saying how to get it, when it is not there. */
export function kubernetesSpecPath(version: string = TARGET_KUBERNETES_VERSION): string {
  const override = process.env[SPEC_PATH_ENV];
  const module = { path: KUBERNETES_MODULE.path, version };
  const path = override || join(upstreamModuleDir(module), "api", "openapi-spec", "swagger.json");
  if (!existsSync(path)) {
    throw new Error(
      [
        `Kubernetes OpenAPI schema for ${version} not found at ${path}.`,
        `Manifest tests validate every object against it and cannot run without it. Fetch it with:`,
        `  ${downloadCommand(module)}`,
        `(large download; it lands in the Go module cache), or point ${SPEC_PATH_ENV} at a swagger.json.`,
      ].join("\n"),
    );
  }
  return path;
}

/**
 * `describe` for a suite that validates against the schema: skipped loudly only when there is neither Go
 * (`PULUMI_KARMADA_NO_GO=1`) nor a {@link SPEC_PATH_ENV} override.
 */
export function describeWithSchema(name: string, body: () => void): void {
  if (process.env[SPEC_PATH_ENV]) describe(name, body);
  else describeUpstream(name, [KUBERNETES_MODULE], body);
}

/**
 * Rewrites one swagger schema for ajv: drops vendor extensions, closes objects that list their
 * properties, and recurses into sub-schemas (never treating property names as keywords).
 */
function adapt(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(adapt);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (key.startsWith("x-") || key === "description") continue;
    if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([name, sub]) => [name, adapt(sub)]),
      );
    } else {
      out[key] = typeof value === "object" ? adapt(value) : value;
    }
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** Validates Kubernetes objects of one version. */
export interface KubernetesSchema {
  readonly version: string;
  /** Problems of one object, each `Kind/name: /path message`; empty when valid. Unknown kinds are a problem. */
  problems(obj: unknown): string[];
  /** Problems of several objects, concatenated. */
  problemsOfAll(objs: readonly unknown[]): string[];
}

const cache = new Map<string, KubernetesSchema>();

/** Loads (once per version) the schema and returns a validator. */
export function kubernetesSchema(version: string = TARGET_KUBERNETES_VERSION): KubernetesSchema {
  const cached = cache.get(version);
  if (cached) return cached;
  const spec = JSON.parse(readFileSync(kubernetesSpecPath(version), "utf8")) as {
    definitions: Record<string, Schema>;
  };

  const byGvk = new Map<string, string>();
  const definitions: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(spec.definitions)) {
    const gvks = (definition["x-kubernetes-group-version-kind"] ?? []) as {
      group: string;
      version: string;
      kind: string;
    }[];
    for (const { group, version: v, kind } of gvks)
      byGvk.set(`${group ? `${group}/` : ""}${v}/${kind}`, name);
    definitions[name] = adapt(definition);
  }
  definitions[INT_OR_STRING] = { anyOf: [{ type: "integer", format: "int32" }, { type: "string" }] };
  definitions[QUANTITY] = { anyOf: [{ type: "string", pattern: QUANTITY_PATTERN }, { type: "number" }] };

  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat("int32", {
    type: "number",
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat("byte", /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  ajv.addSchema({ $id: "kubernetes.json", definitions });

  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (gvk: string): ValidateFunction | undefined => {
    const definition = byGvk.get(gvk);
    if (!definition) return undefined;
    let validate = validators.get(definition);
    if (!validate) {
      validate = ajv.getSchema(`kubernetes.json#/definitions/${definition}`)!;
      validators.set(definition, validate);
    }
    return validate;
  };

  const problems = (obj: unknown): string[] => {
    const o = (obj ?? {}) as { apiVersion?: string; kind?: string; metadata?: { name?: string } };
    const label = `${o.kind ?? "<no kind>"}/${o.metadata?.name ?? "<no name>"}`;
    const validate = validatorFor(`${o.apiVersion}/${o.kind}`);
    if (!validate)
      return [`${label}: no schema for apiVersion ${o.apiVersion} kind ${o.kind} in Kubernetes ${version}`];
    if (validate(obj)) return [];
    return (validate.errors ?? []).map((e) => `${label}: ${describeError(e)}`);
  };
  const schema: KubernetesSchema = {
    version,
    problems,
    problemsOfAll: (objs) => objs.flatMap(problems),
  };
  cache.set(version, schema);
  return schema;
}

function describeError(error: ErrorObject): string {
  const extra =
    error.keyword === "additionalProperties"
      ? ` (${(error.params as { additionalProperty: string }).additionalProperty})`
      : "";
  return `${error.instancePath || "/"} ${error.message ?? error.keyword}${extra}`;
}
