import * as pulumi from "@pulumi/pulumi";
import { ConfigError } from "../lib/validation/errors";

/**
 * The provider of package `pkg` a component's children would use: `provider` or `providers` in its
 * resource options, else its parent's. Read from the options (not `this.getProvider`) so that it can be
 * checked before the component registers itself.
 */
export function providerFromOptions(
  opts: pulumi.ComponentResourceOptions,
  pkg: string,
): pulumi.ProviderResource | undefined {
  const ofPackage = (p: unknown): p is pulumi.ProviderResource =>
    pulumi.CustomResource.isInstance(p) &&
    typeof (p as unknown as { getPackage?: unknown }).getPackage === "function" &&
    (p as unknown as { getPackage(): string }).getPackage() === pkg;
  if (ofPackage(opts.provider)) return opts.provider;
  const providers = opts.providers;
  const listed = Array.isArray(providers) ? providers : Object.values(providers ?? {});
  return listed.find(ofPackage) ?? opts.parent?.getProvider(`${pkg}::`);
}

/**
 * The Kubernetes provider a component deploys to: `provider` or `providers` in its resource options, or
 * inherited from its parent. Nothing in this library falls back to the ambient default provider —
 * deploying a control plane to whatever `~/.kube/config` points at is never what the user meant.
 */
export function requireKubernetesProvider(
  opts: pulumi.ComponentResourceOptions,
  what: string,
): pulumi.ProviderResource {
  const provider = providerFromOptions(opts, "kubernetes");
  if (!provider) {
    throw new ConfigError(
      "opts.provider",
      `${what} needs the host cluster's kubernetes provider in its resource options`,
      "{ provider: new k8s.Provider(...) } or { providers: { kubernetes: ... } }",
    );
  }
  return provider;
}

/**
 * Checks that `value` is an instance of `type` (a component of this program), naming `field` and what
 * was given instead — a plain object or another library's copy fails here, not with a TypeError later.
 */
export function requireComponent<T>(
  field: string,
  value: unknown,
  type: abstract new (...args: never[]) => T,
  typeName: string,
): T {
  if (value instanceof type) return value;
  const given =
    value === undefined || value === null
      ? "is required"
      : `is not a ${typeName} (got ${describeValue(value)})`;
  throw new ConfigError(field, given, `a ${typeName} of this program`);
}

function describeValue(value: unknown): string {
  if (typeof value !== "object") return typeof value;
  const name = (value as object).constructor?.name;
  return name && name !== "Object" ? `a ${name}` : "a plain object";
}
