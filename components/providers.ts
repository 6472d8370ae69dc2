import * as pulumi from "@pulumi/pulumi";
import { ConfigError } from "../lib/validation/errors";

/**
 * The Kubernetes provider a component deploys to: `provider` or `providers` in its resource options, or
 * inherited from its parent. Nothing in this library falls back to the ambient default provider —
 * deploying a control plane to whatever `~/.kube/config` points at is never what the user meant.
 */
export function requireKubernetesProvider(
  component: pulumi.ComponentResource,
  what: string,
): pulumi.ProviderResource {
  const provider = component.getProvider("kubernetes::");
  if (!provider) {
    throw new ConfigError(
      "opts.provider",
      `${what} needs the host cluster's kubernetes provider in its resource options`,
      "{ provider: new k8s.Provider(...) } or { providers: { kubernetes: ... } }",
    );
  }
  return provider;
}
