/**
 * Package-level fields of the schema: name, version, description and license from package.json, and
 * what each language's code generator needs to name the SDK it writes.
 */
import * as fs from "fs";
import * as path from "path";
import { PACKAGE_NAME } from "./naming";

/** The fields of package.json the schema repeats. */
export interface PackageManifest {
  readonly version: string;
  readonly description: string;
  readonly license: string;
  readonly repository?: string | { readonly url: string };
  readonly keywords?: readonly string[];
}

/** package.json of the repository at `root`. */
export function readManifest(root: string): PackageManifest {
  return JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as PackageManifest;
}

/**
 * Settings of the SDK generators (pulumi/pulumi pkg/codegen/<language>/importer.go): package names, and
 * `respectSchemaVersion` so that each SDK carries this package's version rather than a placeholder.
 */
export const LANGUAGE = {
  nodejs: { packageName: "pulumi-karmada-sdk", respectSchemaVersion: true },
  python: {
    packageName: "pulumi_karmada",
    pyproject: { enabled: true },
    respectSchemaVersion: true,
    // TypedDicts beside the Args classes, so that plain dicts type-check (`in_cluster={"replicas": 3}`)
    inputTypes: "classes-and-dicts",
  },
  go: {
    importBasePath: "github.com/pulumi-karmada/pulumi-karmada/sdk/go/karmada",
    generateResourceContainerTypes: true,
    // Args types also for object types used only plain (`extraRules []PolicyRuleArgs` needs one)
    generateExtraInputTypes: true,
    respectSchemaVersion: true,
  },
  csharp: { rootNamespace: "PulumiKarmada", respectSchemaVersion: true },
  java: { basePackage: "com.pulumikarmada" },
} as const;

/** The schema's package fields for `manifest`. */
export function packageFields(manifest: PackageManifest) {
  const repository = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url;
  return {
    name: PACKAGE_NAME,
    displayName: "Karmada",
    version: manifest.version,
    description: manifest.description,
    license: manifest.license,
    ...(repository ? { repository } : {}),
    keywords: ["pulumi", "karmada", "kubernetes", "multi-cluster", "category/cloud", "kind/component"],
    language: LANGUAGE,
  };
}
