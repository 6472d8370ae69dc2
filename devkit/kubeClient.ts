/**
 * Test helpers over lib/kube/rest.ts's HTTPS client, for a loopback cluster's API server authenticated
 * with the admin client certificate: enough to check what the real API server accepted, without kubectl.
 */
import { apiAccessFromKubeconfig } from "../lib/kubeconfig/access";
import { ApiAccess, callApi } from "../lib/kube/rest";

/** How to reach and authenticate to an API server (the admin client certificate). */
export interface ApiCredentials extends ApiAccess {
  readonly certPem: string;
  readonly keyPem: string;
}

/** GET returning the parsed body; throws on any status but 200, naming the path and the status. */
export async function apiGet(creds: ApiCredentials, apiPath: string): Promise<any> {
  const res = await callApi(creds, "GET", apiPath);
  if (res.status !== 200) {
    throw new Error(
      `GET ${apiPath}: HTTP ${res.status} ${typeof res.body === "string" ? res.body : res.body?.message}`,
    );
  }
  return res.body;
}

/** Names of the objects a list endpoint returns (e.g. `/apis/apps/v1/namespaces/x/deployments`). */
export async function listNames(creds: ApiCredentials, apiPath: string): Promise<string[]> {
  const list = await apiGet(creds, apiPath);
  return (list.items as { metadata: { name: string } }[]).map((item) => item.metadata.name).sort();
}

/** Polls `probe` until it resolves true; throws `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what} not reached within ${timeoutMs} ms${lastError ? ` (last error: ${(lastError as Error).message})` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Credentials of a kubeconfig with an embedded client certificate (its current context's). */
export function credentialsFromKubeconfig(kubeconfigText: string): ApiCredentials {
  const access = apiAccessFromKubeconfig(kubeconfigText);
  if (!access.certPem || !access.keyPem) throw new Error("test kubeconfigs carry a client certificate");
  return { ...access, certPem: access.certPem, keyPem: access.keyPem };
}
