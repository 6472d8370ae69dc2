import * as https from "https";

/** TLS material for talking to etcd's client port. */
export interface ClientTls {
  readonly ca: string;
  readonly cert?: string;
  readonly key?: string;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** The key range `[prefix, prefix+1)` as etcd's range_end. */
function prefixEnd(prefix: string): string {
  const bytes = Buffer.from(prefix);
  bytes[bytes.length - 1] += 1;
  return bytes.toString("base64");
}

/**
 * A small client for etcd's JSON gRPC gateway (`/v3/...`, served on the client port by 3.4 and 3.5),
 * with keep-alive and fail-over across endpoints: a request tries each endpoint until one answers.
 */
export class EtcdTestClient {
  private readonly agent: https.Agent;

  constructor(
    public endpoints: string[],
    tls: ClientTls,
  ) {
    this.agent = new https.Agent({
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      keepAlive: true,
      maxSockets: 32,
    });
  }

  /** POSTs to one endpoint. */
  request(endpoint: string, path: string, body: unknown, timeoutMs = 5000): Promise<any> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, endpoint);
      const req = https.request(
        url,
        {
          method: "POST",
          agent: this.agent,
          timeout: timeoutMs,
          headers: { "content-type": "application/json" },
        },
        (res) => {
          let data = "";
          res.on("data", (d) => (data += d));
          res.on("end", () => {
            if (res.statusCode !== 200)
              reject(new Error(`${endpoint}${path}: HTTP ${res.statusCode}: ${data}`));
            else resolve(JSON.parse(data));
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${endpoint}${path}: timeout`)));
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });
  }

  /** Tries endpoints in turn (starting at a rotating offset) until one answers. */
  async call(path: string, body: unknown, timeoutMs?: number): Promise<any> {
    let lastError: unknown;
    const start = Math.floor(Math.random() * this.endpoints.length);
    for (let i = 0; i < this.endpoints.length; i++) {
      const endpoint = this.endpoints[(start + i) % this.endpoints.length];
      try {
        return await this.request(endpoint, path, body, timeoutMs);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  put(key: string, value: string): Promise<any> {
    return this.call("/v3/kv/put", { key: b64(key), value: b64(value) });
  }

  async get(key: string): Promise<string | undefined> {
    const res = await this.call("/v3/kv/range", { key: b64(key) });
    const kv = res.kvs?.[0];
    return kv ? Buffer.from(kv.value ?? "", "base64").toString() : undefined;
  }

  /** Number of keys under `prefix` (a linearizable read: needs a quorum). */
  async count(prefix: string): Promise<number> {
    const res = await this.call("/v3/kv/range", {
      key: b64(prefix),
      range_end: prefixEnd(prefix),
      count_only: true,
    });
    return Number(res.count ?? 0);
  }

  /** Members as etcd reports them. */
  async members(): Promise<{ ID: string; name: string; peerURLs: string[]; isLearner?: boolean }[]> {
    const res = await this.call("/v3/cluster/member/list", {});
    return res.members;
  }

  /**
   * Writes `count` keys `${prefix}${i}` (i zero-padded to 5 digits) with value `value-${i}`: 100 puts per
   * transaction (etcd allows 128 operations per txn), `concurrency` transactions in flight. One raft
   * entry per 100 keys keeps 10,000 keys to seconds on a loaded machine.
   */
  async putMany(prefix: string, count: number, concurrency = 4): Promise<void> {
    const batch = 100;
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const from = next;
        next = Math.min(count, next + batch);
        const success = [];
        for (let i = from; i < next; i++) {
          const key = `${prefix}${String(i).padStart(5, "0")}`;
          success.push({ requestPut: { key: b64(key), value: b64(`value-${i}`) } });
        }
        await this.call("/v3/kv/txn", { success }, 15_000);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Writes a key every `intervalMs` until stopped, retrying each write across endpoints for up to 10 s. */
export class BackgroundWriter {
  ok = 0;
  failed: string[] = [];
  private running = true;
  private loop: Promise<void>;

  constructor(
    private readonly client: EtcdTestClient,
    intervalMs = 50,
  ) {
    this.loop = this.run(intervalMs);
  }

  private async run(intervalMs: number): Promise<void> {
    let i = 0;
    while (this.running) {
      const key = `bg/${String(i++).padStart(6, "0")}`;
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await this.client.put(key, "x");
          this.ok++;
          break;
        } catch (error) {
          if (Date.now() > deadline) {
            this.failed.push(`${key}: ${(error as Error).message}`);
            break;
          }
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }

  /** Stops and waits for the last write. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
