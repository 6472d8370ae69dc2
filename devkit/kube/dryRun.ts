/**
 * Server-side dry runs against a real kube-apiserver: each object is sent as a server-side apply
 * (`application/apply-patch+yaml`, `dryRun=All`, `force=true`, `fieldValidation=Strict`), so the API
 * server decodes, defaults, validates and admits it exactly as it would a real create or update — an
 * unknown or mistyped field, a bad name, an out-of-range port are all rejected — but stores nothing.
 * Namespaces are the exception: namespaced objects need theirs to exist, so they are applied for real.
 */
import * as https from "https";
import type { KubeObject } from "../../lib/kube/apply";
import { ApiCredentials } from "../kubeClient";
import { ApiAnswer, callApi } from "../../lib/kube/rest";
import { ObjectLocator } from "./objects";

/** The API server's verdict on one object. */
export interface DryRunResult {
  /** `Kind namespace/name` */
  readonly object: string;
  readonly status: number;
  /** The Status message of a rejection (absent when accepted). */
  readonly message?: string;
}

/** Whether the API server accepted the object. */
export const accepted = (r: DryRunResult): boolean => r.status === 200 || r.status === 201;

/** Options of {@link DryRunner}. */
export interface DryRunOptions {
  /** Field manager of the applies. @default "pulumi-karmada-dry-run" */
  readonly fieldManager?: string;
  /** Requests in flight at once. @default 8 */
  readonly concurrency?: number;
  /** Per-request timeout. @default 30000 */
  readonly timeoutMs?: number;
}

const label = (obj: KubeObject): string =>
  `${String(obj?.kind)} ${obj?.metadata?.namespace ? `${String(obj.metadata.namespace)}/` : ""}${String(
    obj?.metadata?.name,
  )}`;

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Dry-runs objects on one API server (one keep-alive connection pool, discovery cached). */
export class DryRunner {
  private readonly agent: https.Agent;
  private readonly locate: ObjectLocator;
  private readonly fieldManager: string;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  /** Namespaces known to exist (created here or found). */
  private readonly namespaces = new Map<string, Promise<DryRunResult>>();

  constructor(
    private readonly creds: ApiCredentials,
    options: DryRunOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 8;
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: this.concurrency,
      ca: creds.caPem,
      cert: creds.certPem,
      key: creds.keyPem,
    });
    this.locate = new ObjectLocator(creds);
    this.fieldManager = options.fieldManager ?? "pulumi-karmada-dry-run";
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Closes the pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  private send(method: string, apiPath: string, contentType: string, body: unknown): Promise<ApiAnswer> {
    return callApi(this.creds, method, apiPath, body, this.timeoutMs, { agent: this.agent, contentType });
  }

  /** One request, retried once on a connection reset (a pooled socket the server closed). */
  private async request(
    method: string,
    apiPath: string,
    contentType: string,
    body: unknown,
  ): Promise<ApiAnswer> {
    try {
      return await this.send(method, apiPath, contentType, body);
    } catch (e) {
      if (!/socket hang up|ECONNRESET|EPIPE/.test(String((e as Error).message))) throw e;
      return this.send(method, apiPath, contentType, body);
    }
  }

  /**
   * Server-side apply of `obj`: `dryRun` true stores nothing. A kind the server does not serve (or an
   * object without a usable identity) is a rejection with status 0 and a message saying why.
   */
  async apply(obj: KubeObject, dryRun = true): Promise<DryRunResult> {
    const object = label(obj);
    let objectPath: string;
    try {
      if (typeof obj?.metadata?.name !== "string" || obj.metadata.name === "") {
        return {
          object,
          status: 0,
          message: `metadata.name ${JSON.stringify(obj?.metadata?.name)} is not a name`,
        };
      }
      objectPath = await this.locate.path({
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: encodeURIComponent(obj.metadata.name),
        namespace:
          obj.metadata.namespace === undefined
            ? undefined
            : encodeURIComponent(String(obj.metadata.namespace)),
      });
    } catch (e) {
      return { object, status: 0, message: (e as Error).message };
    }
    const query = new URLSearchParams({
      fieldManager: this.fieldManager,
      force: "true",
      fieldValidation: "Strict",
      ...(dryRun ? { dryRun: "All" } : {}),
    });
    const res = await this.request("PATCH", `${objectPath}?${query}`, "application/apply-patch+yaml", obj);
    const ok = res.status === 200 || res.status === 201;
    return {
      object,
      status: res.status,
      ...(ok ? {} : { message: typeof res.body === "string" ? res.body : res.body?.message }),
    };
  }

  /**
   * Makes sure namespace `name` exists: applies `obj` (the generated Namespace object) for real when
   * given, else a bare Namespace. Remembered, so each namespace costs one request per runner.
   */
  ensureNamespace(name: string, obj?: KubeObject): Promise<DryRunResult> {
    let done = this.namespaces.get(name);
    if (!done) {
      const namespace = obj ?? { apiVersion: "v1", kind: "Namespace", metadata: { name } };
      done = this.apply(namespace, false);
      this.namespaces.set(name, done);
    }
    return done;
  }

  /**
   * Dry-runs every object: first the namespaces they live in are created for real (from the Namespace
   * objects among them when there are), then everything else is dry-run, `concurrency` at a time.
   * Returns the verdict on every object, Namespace objects included, in input order.
   */
  async dryRunAll(objects: readonly KubeObject[]): Promise<DryRunResult[]> {
    const namespaceObjects = new Map<string, KubeObject>();
    for (const obj of objects) {
      if (obj?.apiVersion === "v1" && obj.kind === "Namespace" && typeof obj.metadata?.name === "string")
        namespaceObjects.set(obj.metadata.name, obj);
    }
    const needed = new Set<string>(namespaceObjects.keys());
    for (const obj of objects) {
      const ns = obj?.metadata?.namespace;
      if (typeof ns === "string" && ns !== "") needed.add(ns);
    }
    const nsResults = new Map<string, DryRunResult>();
    await mapLimit([...needed], this.concurrency, async (ns) => {
      nsResults.set(ns, await this.ensureNamespace(ns, namespaceObjects.get(ns)));
    });
    return mapLimit(objects, this.concurrency, async (obj) => {
      if (obj?.apiVersion === "v1" && obj.kind === "Namespace" && typeof obj.metadata?.name === "string") {
        // the generated object itself was applied (for real) when its namespace was ensured — unless
        // an earlier run created that namespace from a different object: judge this one by a dry run
        const first = nsResults.get(obj.metadata.name)!;
        return accepted(first) ? this.apply(obj, true) : first;
      }
      const ns = obj?.metadata?.namespace;
      const nsResult = typeof ns === "string" ? nsResults.get(ns) : undefined;
      if (nsResult && !accepted(nsResult)) {
        return { object: label(obj), status: 0, message: `namespace ${ns} rejected: ${nsResult.message}` };
      }
      return this.apply(obj, true);
    });
  }
}
