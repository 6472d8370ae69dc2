/**
 * The `pulumi` CLI run on a stack's project directly, as an operator or a CI job runs it (not through the
 * Automation API): its pid is the one a lock names, it runs in a process group of its own (the language
 * host and providers with it), so a test can kill it the way a laptop dies, and `--json` gives its engine
 * events for the same step assertions as the Automation API's.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { spawn } from "child_process";
import type { EngineEnv } from "./env";

/** How a CLI run ended. */
export interface CliResult {
  /** Exit code; null when killed by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Engine events of a `--json` run (empty otherwise). */
  readonly events: EngineEvent[];
}

/** A CLI process in flight. */
export interface CliRun {
  readonly pid: number;
  /** Engine events so far (of a `--json` run). */
  readonly events: readonly EngineEvent[];
  readonly finished: Promise<CliResult>;
  /** SIGKILL to its whole process group: the CLI, its language host and providers die at once. */
  killGroup(): void;
}

/** Options of a CLI run. */
export interface CliOptions {
  /** Written to its stdin (answers to its prompts), then closed. @default nothing, stdin closed */
  readonly input?: string;
  /** Over the engine's environment (e.g. another `PULUMI_CONFIG_PASSPHRASE`). @default none */
  readonly env?: Readonly<Record<string, string>>;
}

/** Starts `pulumi args…` in `workDir` with the engine's environment. */
export function startCli(
  engine: EngineEnv,
  workDir: string,
  args: readonly string[],
  options: CliOptions = {},
): CliRun {
  const child = spawn(engine.pulumiBinary, [...args], {
    cwd: workDir,
    env: { ...process.env, ...engine.env, ...options.env },
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end(options.input ?? "");
  const events: EngineEvent[] = [];
  let stdout = "";
  let stderr = "";
  let partial = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith("{")) {
        try {
          events.push(JSON.parse(line) as EngineEvent);
        } catch {
          // not an event line (a `--json` run prints nothing else; other runs print no JSON)
        }
      }
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const finished = new Promise<CliResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr, events }));
  });
  return {
    pid: child.pid!,
    events,
    finished,
    killGroup: () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}

/** Runs `pulumi args…` to the end. */
export function runCli(
  engine: EngineEnv,
  workDir: string,
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliResult> {
  return startCli(engine, workDir, args, options).finished;
}

/** The `resourceChanges` of a `--json` update's summary event (`{ same: 312, read: 2 }`). */
export function summaryChanges(events: readonly EngineEvent[]): Record<string, number> | undefined {
  const summary = events.find((e) => e.summaryEvent)?.summaryEvent;
  return summary ? { ...(summary.resourceChanges as Record<string, number>) } : undefined;
}
