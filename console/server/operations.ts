/**
 * Operations (`up`, `refresh`, `destroy`) and their event streams: at most one per stack at a time (a
 * second is refused naming the running one), every event kept so a late subscriber replays from the
 * start, and each finished operation's record written to `<dataDir>/operations/<id>.json` so the history
 * survives a restart. Events are redacted before they are stored.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ProgressEvent } from "./progress";

/** What an operation does (a preview too is one: it holds the stack while it runs and is kept in the history). */
export type OperationKind = "preview" | "up" | "refresh" | "destroy";

/** Where an operation is. */
type OperationStatus = "running" | "succeeded" | "failed";

/** An operation's record, as the API returns it. */
export interface OperationRecord {
  readonly id: string;
  readonly stack: string;
  readonly kind: OperationKind;
  /** Name of the token that started it. */
  readonly requestedBy: string;
  readonly startedAt: string;
  finishedAt?: string;
  status: OperationStatus;
  /** Resources per operation, from the engine's summary. */
  changes?: Record<string, number>;
  /** Why it failed (redacted). */
  error?: string;
}

/** A running or finished operation. */
interface Entry {
  readonly record: OperationRecord;
  readonly events: ProgressEvent[];
  readonly listeners: Set<(event: ProgressEvent | undefined) => void>;
}

/** Refusal of a second operation on a busy stack. */
export class StackBusyError extends Error {
  constructor(public readonly running: OperationRecord) {
    super(`stack ${running.stack} is busy: operation ${running.id} (${running.kind}) is running`);
  }
}

export class OperationRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly busy = new Map<string, string>();
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, "operations");
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const file of fs.readdirSync(this.dir).filter((f) => f.endsWith(".json"))) {
      const saved = JSON.parse(fs.readFileSync(path.join(this.dir, file), "utf8")) as {
        record: OperationRecord;
        events: ProgressEvent[];
      };
      // a server stopped mid-operation: the record says so instead of "running" forever
      if (saved.record.status === "running")
        Object.assign(saved.record, {
          status: "failed",
          error: "the console server stopped during the operation",
        });
      this.entries.set(saved.record.id, { ...saved, listeners: new Set() });
    }
  }

  /** The operation running on `stack`, if any. */
  runningOn(stack: string): OperationRecord | undefined {
    const id = this.busy.get(stack);
    return id === undefined ? undefined : this.entries.get(id)?.record;
  }

  /**
   * Claims `stack` for a new operation (or throws {@link StackBusyError}) and returns its record, to be fed
   * with {@link emit} and closed with {@link finish}. Claimed synchronously: two requests cannot both win.
   */
  begin(stack: string, kind: OperationKind, requestedBy: string, now = new Date()): OperationRecord {
    const running = this.runningOn(stack);
    if (running) throw new StackBusyError(running);
    const record: OperationRecord = {
      id: randomUUID(),
      stack,
      kind,
      requestedBy,
      startedAt: now.toISOString(),
      status: "running",
    };
    this.entries.set(record.id, { record, events: [], listeners: new Set() });
    this.busy.set(stack, record.id);
    return record;
  }

  /** Records and broadcasts one (already redacted) event. */
  emit(id: string, event: ProgressEvent): void {
    const entry = this.require(id);
    entry.events.push(event);
    if (event.kind === "summary") entry.record.changes = { ...event.changes };
    for (const listener of entry.listeners) listener(event);
  }

  /** Ends the operation, frees its stack and keeps its record on disk. */
  finish(id: string, status: "succeeded" | "failed", error?: string, now = new Date()): void {
    const entry = this.require(id);
    Object.assign(entry.record, { status, finishedAt: now.toISOString(), ...(error ? { error } : {}) });
    if (this.busy.get(entry.record.stack) === id) this.busy.delete(entry.record.stack);
    fs.writeFileSync(
      path.join(this.dir, `${id}.json`),
      JSON.stringify({ record: entry.record, events: entry.events }),
      { mode: 0o600 },
    );
    for (const listener of entry.listeners) listener(undefined);
    entry.listeners.clear();
  }

  get(id: string): OperationRecord | undefined {
    return this.entries.get(id)?.record;
  }

  /** Operations, newest first; of one stack when given. */
  list(stack?: string): OperationRecord[] {
    return [...this.entries.values()]
      .map((e) => e.record)
      .filter((r) => stack === undefined || r.stack === stack)
      .sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
  }

  /**
   * Replays the events so far to `listener`, then the live ones; `undefined` marks the end (at once for
   * a finished operation). Returns the unsubscribe function.
   */
  subscribe(id: string, listener: (event: ProgressEvent | undefined) => void): () => void {
    const entry = this.require(id);
    for (const event of entry.events) listener(event);
    if (entry.record.status !== "running") {
      listener(undefined);
      return () => undefined;
    }
    entry.listeners.add(listener);
    return () => entry.listeners.delete(listener);
  }

  private require(id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry) throw new Error(`no operation ${id}`);
    return entry;
  }
}
