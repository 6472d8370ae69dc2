/**
 * The Karmada provider's kubeconfig, released once karmada-apiserver serves through it
 * (lib/kube/serving.ts says why): the provider reads the API's discovery when it is configured, and a
 * NodePort kube-proxy has not programmed yet, or a load balancer still registering its targets, would
 * mark Karmada unreachable for the whole `up`.
 */
import * as pulumi from "@pulumi/pulumi";
import { callApi } from "../../lib/kube/rest";
import { waitUntilServing } from "../../lib/kube/serving";
import { apiAccessFromKubeconfig } from "../../lib/kubeconfig/access";

/** Seconds an `up` waits for karmada-apiserver at its external endpoint (a cloud load balancer's registration included). */
const API_SERVING_TIMEOUT_SECONDS = 300;
/** Seconds between attempts. */
const POLL_SECONDS = 1;
/** Seconds one attempt may take. */
const REQUEST_TIMEOUT_SECONDS = 5;

/**
 * `kubeconfig`, once every resource of `after` is in place (their URNs resolve when their steps are
 * done) and karmada-apiserver answers `GET /readyz` with 200 through it. A preview, or a program
 * without an engine (unit tests with mocks), deploys nothing: the kubeconfig comes through unchanged.
 * The value is the same string either way, so the provider shows no change.
 */
export function kubeconfigOnceServing(
  kubeconfig: pulumi.Output<string>,
  after: readonly pulumi.Resource[],
  parent: pulumi.Resource,
): pulumi.Output<string> {
  return pulumi.all([kubeconfig, ...after.map((r) => r.urn)]).apply(async ([text]) => {
    if (pulumi.runtime.isDryRun() || !pulumi.runtime.getEngine()) return text;
    const access = apiAccessFromKubeconfig(text);
    try {
      await waitUntilServing(
        (apiPath) => callApi(access, "GET", apiPath, undefined, REQUEST_TIMEOUT_SECONDS * 1000),
        {
          timeoutMs: API_SERVING_TIMEOUT_SECONDS * 1000,
          pollMs: POLL_SECONDS * 1000,
          onRetry: (problem, attempt) => {
            if (attempt === 1) {
              void pulumi.log.info(
                `waiting for karmada-apiserver to serve at ${access.server} (${problem})`,
                parent,
              );
            }
          },
        },
      );
    } catch (err) {
      throw new pulumi.ResourceError(
        `karmada-apiserver at ${access.server} is ${(err as Error).message}: the Karmada provider needs it ` +
          "reachable from where `pulumi up` runs (the external endpoint: NodePort, load balancer or hosts' address)",
        parent,
      );
    }
    return text;
  });
}
