/**
 * The console API's typed client, its types generated from the OpenAPI document (schema.d.ts). The web
 * console and the tests use it; so can a platform docking to the console.
 */
import type { components, operations } from "./schema";

export type Schemas = components["schemas"];
export type EstateSummary = Schemas["EstateSummary"];
export type EstateDetail = Schemas["EstateDetail"];
export type SettingEdit = Schemas["SettingEdit"];
export type PreviewResult = Schemas["PreviewResult"];
export type OperationRecord = Schemas["OperationRecord"];
export type ProgressEvent = Schemas["ProgressEvent"];
export type Problem = Schemas["Problem"];
export type OperationRequest = operations["startOperation"]["requestBody"]["content"]["application/json"];

/** A problem answer (RFC 9457) of the API. */
export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.title}: ${problem.detail}`);
  }
}

/** How the client sends a request: the global `fetch`, or one with a proxy, a custom agent or a recorder. */
export type Fetch = (input: URL, init: RequestInit) => Promise<Response>;

export class ConsoleClient {
  /**
   * @param baseUrl the console's origin, e.g. `http://127.0.0.1:8750`
   * @param token one of the console's bearer tokens
   * @param send what sends the requests @default the global `fetch`
   */
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly send: Fetch = (input, init) => fetch(input, init),
  ) {}

  private async call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const response = await this.send(new URL(path, this.baseUrl), {
      method,
      headers: {
        Authorization: `Bearer ${this.token}`,
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text === "" ? undefined : JSON.parse(text);
    if (!response.ok) throw new ConsoleApiError(response.status, parsed as Problem);
    return parsed as T;
  }

  listEstates(): Promise<{ estates: EstateSummary[] }> {
    return this.call("GET", "/api/v1/estates");
  }

  getEstate(stack: string): Promise<EstateDetail> {
    return this.call("GET", `/api/v1/estates/${encodeURIComponent(stack)}`);
  }

  /** The per-object diff of the stack with `edits` (not kept). */
  preview(stack: string, edits: SettingEdit[] = []): Promise<PreviewResult> {
    return this.call("POST", `/api/v1/estates/${encodeURIComponent(stack)}/preview`, { edits });
  }

  /** Starts an operation; follow it with {@link events}. */
  startOperation(stack: string, request: OperationRequest): Promise<OperationRecord> {
    return this.call("POST", `/api/v1/estates/${encodeURIComponent(stack)}/operations`, request);
  }

  listOperations(stack?: string): Promise<{ operations: OperationRecord[] }> {
    return this.call("GET", `/api/v1/operations${stack ? `?stack=${encodeURIComponent(stack)}` : ""}`);
  }

  getOperation(id: string): Promise<OperationRecord> {
    return this.call("GET", `/api/v1/operations/${encodeURIComponent(id)}`);
  }

  /** The operation's events from its start, live until it ends (Server-Sent Events). */
  async *events(id: string): AsyncGenerator<ProgressEvent> {
    const path = `/api/v1/operations/${encodeURIComponent(id)}/events`;
    const response = await this.send(new URL(path, this.baseUrl), {
      headers: { Authorization: `Bearer ${this.token}`, Accept: "text/event-stream" },
    });
    if (!response.ok || !response.body) {
      const text = await response.text();
      throw new ConsoleApiError(response.status, JSON.parse(text) as Problem);
    }
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame
            .split("\n")
            .filter((line) => line.startsWith("data: "))
            .map((line) => line.slice(6))
            .join("\n");
          if (data !== "") yield JSON.parse(data) as ProgressEvent;
        }
      }
    } finally {
      reader.releaseLock();
    }
  }
}
