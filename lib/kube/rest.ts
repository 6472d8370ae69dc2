/**
 * A minimal HTTPS client for a Kubernetes API server: one JSON request, any status returned. It runs
 * where @pulumi/kubernetes cannot be called — inside the engine's Node.js dynamic-provider host (the
 * pull member's execution-space drain, components/members/drain.ts) — and under the tests. Self-contained
 * on purpose: the engine serializes these functions into the provider by value, and from an installed
 * package anything they read off a module object — an import of the library's own modules, or one of
 * their `export const`s, which compiled code reads off `exports` — becomes a `require` of a path the
 * package's exports map refuses. So: named imports of Node built-ins only, exported constants bound
 * locally and exported by name.
 */
import type { IncomingMessage } from "http";
import { Agent, request } from "https";

/** How to reach and authenticate to an API server: a client certificate or a bearer token. */
export interface ApiAccess {
  /** `https://host[:port]` */
  readonly server: string;
  /** PEM of the CA that signed the server's certificate. */
  readonly caPem: string;
  /** PEM of the client certificate (with `keyPem`). */
  readonly certPem?: string;
  /** PEM of the client's private key. */
  readonly keyPem?: string;
  /** Bearer token, instead of a client certificate. */
  readonly token?: string;
}

/**
 * How a poller of an API (the drain, the wait for an API server to serve) finds time to pass;
 * injectable for tests. Wall-clock milliseconds, as the API's times.
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** An API answer: its status code and body (parsed JSON when it is JSON, else the raw text). */
export interface ApiAnswer {
  readonly status: number;
  readonly body: any;
}

/** Status and body of a response; the body parsed as JSON when it is JSON (e.g. not /readyz's text). */
function readAnswer(res: IncomingMessage): Promise<ApiAnswer> {
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

/** How a caller that sends many requests shapes them (the tests' server-side dry runs). */
export interface CallOptions {
  /** A keep-alive pool (made with the access's CA and client certificate). @default a fresh connection */
  readonly agent?: Agent;
  /** The body's content type. @default JSON, a JSON merge patch for PATCH */
  readonly contentType?: string;
}

/**
 * Sends one request and resolves with any HTTP status (only connection errors and the timeout
 * reject). The body is sent as JSON; PATCH bodies are JSON merge patches unless `options` says otherwise.
 */
export function callApi(
  access: ApiAccess,
  method: string,
  apiPath: string,
  body?: unknown,
  timeoutMs = 10_000,
  options: CallOptions = {},
): Promise<ApiAnswer> {
  const url = new URL(apiPath, access.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string | number> = {};
  if (access.token) headers.authorization = `Bearer ${access.token}`;
  if (payload) {
    headers["content-type"] =
      options.contentType ?? (method === "PATCH" ? "application/merge-patch+json" : "application/json");
    headers["content-length"] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        // a fresh connection per request unless the caller pools: a pooled keep-alive socket the server
        // has since closed fails with "socket hang up" (most callers make few requests, minutes apart)
        agent: options.agent ?? false,
        ca: access.caPem,
        cert: access.certPem,
        key: access.keyPem,
        timeout: timeoutMs,
        headers,
      },
      (res) => readAnswer(res).then(resolve, reject),
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}
