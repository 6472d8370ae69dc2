/**
 * A minimal HTTPS client for a loopback cluster's API server, authenticated with the admin client
 * certificate: enough to check what the real API server accepted, without kubectl.
 */
import * as https from "https";
import { parse as parseYaml } from "yaml";

/** How to reach and authenticate to an API server. */
export interface ApiCredentials {
  /** `https://host:port` */
  readonly server: string;
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** An API response: status code and the body (parsed JSON when it is JSON, else the raw text). */
export interface ApiResponse {
  readonly status: number;
  readonly body: any;
}

/** Sends one request; resolves with any HTTP status (only connection errors reject). */
export function apiRequest(
  creds: ApiCredentials,
  method: string,
  apiPath: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<ApiResponse> {
  const url = new URL(apiPath, creds.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        // a fresh connection per request: a pooled keep-alive socket the server has since closed
        // fails with "socket hang up" (requests here are few, and minutes apart)
        agent: false,
        ca: creds.caPem,
        cert: creds.certPem,
        key: creds.keyPem,
        timeout: timeoutMs,
        headers: payload
          ? {
              // PATCH bodies are JSON merge patches
              "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
              "content-length": Buffer.byteLength(payload),
            }
          : {},
      },
      (res) => readResponse(res).then(resolve, reject),
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** GET returning the parsed body; throws on any status but 200, naming the path and the status. */
export async function apiGet(creds: ApiCredentials, apiPath: string): Promise<any> {
  const res = await apiRequest(creds, "GET", apiPath);
  if (res.status !== 200) {
    throw new Error(
      `GET ${apiPath}: HTTP ${res.status} ${typeof res.body === "string" ? res.body : res.body?.message}`,
    );
  }
  return res.body;
}

/** Whether GET `apiPath` answers 200 (false on 404; other errors throw). */
export async function apiExists(creds: ApiCredentials, apiPath: string): Promise<boolean> {
  const res = await apiRequest(creds, "GET", apiPath);
  if (res.status === 404) return false;
  if (res.status === 200) return true;
  throw new Error(`GET ${apiPath}: HTTP ${res.status}`);
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

/** Credentials of the first cluster and user of a kubeconfig with embedded certificate data. */
export function credentialsFromKubeconfig(kubeconfigText: string): ApiCredentials {
  const kubeconfig = parseYaml(kubeconfigText);
  const decode = (b64: string) => Buffer.from(b64, "base64").toString();
  return {
    server: kubeconfig.clusters[0].cluster.server,
    caPem: decode(kubeconfig.clusters[0].cluster["certificate-authority-data"]),
    certPem: decode(kubeconfig.users[0].user["client-certificate-data"]),
    keyPem: decode(kubeconfig.users[0].user["client-key-data"]),
  };
}

/** Status and body of a response: the body parsed as JSON when it is JSON (e.g. not /readyz's text). */
export function readResponse(
  res: import("http").IncomingMessage,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (chunk) => (text += chunk));
    res.on("error", reject);
    res.on("end", () => {
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      resolve({ status: res.statusCode ?? 0, body: parsed });
    });
  });
}
