/**
 * The audit log: one JSON line per state-changing request — who (the token's name), what, when, and how
 * it ended. Written by the server only, mode 0600; it holds no secret (config edits are logged by key,
 * never by value).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** One audited request. */
export interface AuditRecord {
  /** RFC 3339 time the request arrived. */
  readonly at: string;
  /** Name of the token it authenticated with. */
  readonly who: string;
  /** What was asked, e.g. `up`, `preview`, `destroy`. */
  readonly action: string;
  readonly stack?: string;
  /** Config keys the request edits (values are never logged). */
  readonly configKeys?: readonly string[];
  /** The operation it started, if any. */
  readonly operationId?: string;
  /** HTTP status answered. */
  readonly status: number;
  /** `accepted`, `succeeded`, `failed`, `refused` … */
  readonly result: string;
}

/** Appends records to `<dataDir>/audit.log`. */
export class AuditLog {
  readonly file: string;

  constructor(dataDir: string) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.file = path.join(dataDir, "audit.log");
  }

  append(record: AuditRecord): void {
    fs.appendFileSync(this.file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }

  /** Every record so far, oldest first. */
  read(): AuditRecord[] {
    if (!fs.existsSync(this.file)) return [];
    return fs
      .readFileSync(this.file, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as AuditRecord);
  }
}
