/**
 * Fields holding Pulumi resources. A component of this package is a reference to its resource
 * (`#/resources/karmada:index:EtcdCluster`); a `kubernetes` provider a reference to that package's
 * provider (and a dependency on it). Any other resource has no schema type: the field is skipped.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { DependencySpec, TypeSpec, resourceRef } from "./spec";
import { declaringPackage } from "./tsTypes";

/** A package whose provider fields may refer to. */
export interface ProviderPackage {
  /** The npm package that declares its `Provider` class. */
  readonly npm: string;
  readonly dependency: DependencySpec;
}

/** `$ref` of a package's provider resource. */
const providerRef = (dependency: DependencySpec): string =>
  `/${dependency.name}/v${dependency.version}/schema.json#/provider`;

/** The `kubernetes` package at the version this repository installs (node_modules/@pulumi/kubernetes). */
export function kubernetesPackage(root: string): ProviderPackage {
  const manifest = path.join(root, "node_modules", "@pulumi", "kubernetes", "package.json");
  const { version } = JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string };
  return { npm: "@pulumi/kubernetes", dependency: { name: "kubernetes", version } };
}

/**
 * Fields typed as any provider (`pulumi.ProviderResource`) that take a provider of one package, by
 * `<Owner>.<field>`. Any other such field is skipped (and so shows in the skip list the tests pin).
 */
const PROVIDER_FIELDS: Readonly<Record<string, string>> = {
  // a member cluster's provider, for addons installed onto members (`target: "members"`)
  "AddonMember.provider": "@pulumi/kubernetes",
};

/** How resource fields map, for one generation. */
export interface ResourceContext {
  /** Token of each served component class, by its symbol. */
  readonly components: ReadonlyMap<ts.Symbol, string>;
  /** Packages whose providers fields may hold, by npm name. */
  readonly providers: ReadonlyMap<string, ProviderPackage>;
}

/** What a resource-typed field becomes: a reference (and the package it needs), or why it cannot. */
export type ResourceMapping =
  { readonly spec: TypeSpec; readonly dependency?: DependencySpec } | { readonly skipReason: string };

/** The reference for resource `type` found at `field` (`<Owner>.<field>`). */
export function mapResource(type: ts.Type, field: string, context: ResourceContext): ResourceMapping {
  const symbol = type.getSymbol();
  const component = symbol && context.components.get(symbol);
  if (component) return { spec: { $ref: resourceRef(component) } };
  const pkg = declaringPackage(symbol);
  const providerPackage =
    symbol?.name === "Provider" && pkg !== undefined
      ? context.providers.get(pkg)
      : symbol?.name === "ProviderResource" && PROVIDER_FIELDS[field] !== undefined
        ? context.providers.get(PROVIDER_FIELDS[field])
        : undefined;
  if (providerPackage) {
    return {
      spec: { $ref: providerRef(providerPackage.dependency) },
      dependency: providerPackage.dependency,
    };
  }
  if (symbol?.name === "ProviderResource") {
    return {
      skipReason:
        "ProviderResource (any provider): list the package it takes in PROVIDER_FIELDS (provider/schema/resources.ts)",
    };
  }
  return { skipReason: `${symbol?.name ?? "Resource"} (a resource with no schema type)` };
}
