import * as pulumi from "@pulumi/pulumi";
import { validateHttpsUrl } from "../validation/urls";
import { KubeconfigParams, renderKubeconfig, validateKubeconfigNames } from "./render";

/** {@link KubeconfigParams} with the server and PEMs as Pulumi Inputs (typically tls resource outputs). */
export interface KubeconfigInputs {
  /** API server URL, `https://host[:port]`. */
  readonly server: pulumi.Input<string>;
  /** PEM of the CA that signed the server's certificate. */
  readonly caPem: pulumi.Input<string>;
  /** PEM of the client certificate. */
  readonly certPem: pulumi.Input<string>;
  /** PEM of the client's private key. */
  readonly keyPem: pulumi.Input<string>;
  /** Name of the cluster entry. */
  readonly clusterName: string;
  /** Name of the user entry. */
  readonly userName: string;
  /** Name of the only (and current) context. */
  readonly contextName: string;
}

/**
 * The kubeconfig as a secret Output: it embeds a private key, so it is a secret whether or not the key
 * Input already was one. Names, and a plain-string server, are checked right away; the PEMs once known.
 */
export function kubeconfigOutput(inputs: KubeconfigInputs): pulumi.Output<string> {
  const { clusterName, userName, contextName } = validateKubeconfigNames(inputs);
  if (typeof inputs.server === "string") validateHttpsUrl("server", inputs.server);
  const rendered = pulumi
    .all([inputs.server, inputs.caPem, inputs.certPem, inputs.keyPem])
    .apply(([server, caPem, certPem, keyPem]: string[]) =>
      renderKubeconfig({
        server,
        caPem,
        certPem,
        keyPem,
        clusterName,
        userName,
        contextName,
      } satisfies KubeconfigParams),
    );
  return pulumi.secret(rendered);
}
