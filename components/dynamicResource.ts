/**
 * The library's dynamic resources (drift checks, pull members' drains) registered as
 * `pulumi.dynamic.Resource` registers them — type `pulumi-nodejs:dynamic:Resource`, the provider as module
 * text in the `__provider` input — but with that text serialized once per library build and cached on
 * disk (lib/cache/serializedProvider.ts) instead of once per process by the SDK.
 */
import { extname, join, resolve } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { cacheRoot } from "../lib/cache/entries";
import { serializeProvider } from "../lib/cache/serializedProvider";

/** The type `pulumi.dynamic.Resource` registers (no module, type `Resource`) and its provider's input. */
const DYNAMIC_RESOURCE_TYPE = "pulumi-nodejs:dynamic:Resource";
const PROVIDER_INPUT = "__provider";

/** Each provider's text, by name: one serialization (or cache read) per process. */
const providerTexts = new Map<string, pulumi.Output<string>>();

function providerText(name: string, provider: pulumi.dynamic.ResourceProvider): pulumi.Output<string> {
  let text = providerTexts.get(name);
  if (!text) {
    const code = { root: resolve(__dirname, ".."), extension: extname(__filename) };
    text = pulumi
      .output(serializeProvider(provider, name, code, join(cacheRoot(), "providers")))
      .apply((s) => (s.containsSecrets ? pulumi.secret(s.text) : pulumi.output(s.text)));
    providerTexts.set(name, text);
  }
  return text;
}

/** The provider of a library dynamic resource: a name (its cache entry) and the provider itself. */
export interface LibraryProvider {
  readonly name: string;
  readonly provider: pulumi.dynamic.ResourceProvider;
}

/**
 * The provider of a group of library dynamic resources: the engine's Node.js dynamic-provider host, given
 * nothing. Without an explicit one they would use the default provider, to which the engine hands the
 * whole stack configuration — every configuration change would then show as an update of that provider.
 */
export class DynamicProviderHost extends pulumi.ProviderResource {
  constructor(name: string, opts?: pulumi.ResourceOptions) {
    super("pulumi-nodejs", name, {}, opts);
  }
}

/** A dynamic resource of the library, its provider's text from the cache. */
export class LibraryDynamicResource extends pulumi.CustomResource {
  constructor(
    provider: LibraryProvider,
    name: string,
    props: pulumi.Inputs,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(
      DYNAMIC_RESOURCE_TYPE,
      name,
      { ...props, [PROVIDER_INPUT]: providerText(provider.name, provider.provider) },
      opts,
    );
  }
}
