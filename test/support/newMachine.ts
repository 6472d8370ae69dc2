/**
 * A new machine as the README's commands meet it: a test-bed cache holding only what a set-up step builds
 * (`scripts/setup.sh components <step>`), hard-linked from the full cache so nothing is rebuilt, and an
 * environment that knows nothing of the full cache (no test-bed PATH entries, no TESTBED_* or PULUMI_HOME).
 * A command that needs more than its step builds then fails here as it fails on a new machine.
 */
import { execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { currentEnv, REPO_ROOT, testbedEnv } from "../../devkit/testbed";

/** The full test bed's root (`<cache>/testbed`), as env.sh computed it. */
function fullTestbedRoot(): string {
  const root = testbedEnv().env.TESTBED_ROOT;
  if (!root) throw new Error("scripts/testbed/env.sh exported no TESTBED_ROOT");
  return root;
}

/**
 * A cache in `cacheDir` holding what `scripts/setup.sh <step>` builds and nothing else, every entry
 * hard-linked from the full test bed. Returns the entries linked.
 */
export function seedCache(cacheDir: string, step: "estate" | "containerized"): string[] {
  const entries = execFileSync("bash", [path.join(REPO_ROOT, "scripts", "setup.sh"), "components", step], {
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
  const from = fullTestbedRoot();
  const to = path.join(cacheDir, "testbed");
  fs.mkdirSync(to, { recursive: true });
  for (const entry of entries) {
    if (!fs.existsSync(path.join(from, entry))) throw new Error(`the full test bed has no ${entry}`);
    // an entry another step seeded already stays as it is
    if (!fs.existsSync(path.join(to, entry)))
      execFileSync("cp", ["-al", path.join(from, entry), path.join(to, entry)]);
  }
  return entries;
}

/** The environment of a new machine whose cache is `cacheDir`: nothing of the full test bed in it. */
export function newMachineEnv(cacheDir: string): Record<string, string> {
  const root = fullTestbedRoot();
  const env = currentEnv();
  for (const key of Object.keys(env))
    if (key.startsWith("TESTBED_") || key === "PULUMI_HOME" || key.startsWith("PULUMI_KARMADA_"))
      delete env[key];
  env.PATH = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir && !dir.startsWith(root))
    .join(path.delimiter);
  env.PULUMI_KARMADA_CACHE = cacheDir;
  return env;
}

/** How a command ended. */
export interface CommandRun {
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** stdout and stderr, interleaved as written (also in the log file). */
  readonly output: string;
  readonly seconds: number;
}

/** A command started by {@link startCommand}. */
export interface RunningCommand {
  readonly pid: number;
  /** Sends `signal` to its whole process group (as a terminal's Ctrl-C does). */
  signal(signal: NodeJS.Signals): void;
  readonly done: Promise<CommandRun>;
}

/**
 * Starts `npm <args>` in the repository as a user at a terminal would (its own process group), output
 * appended to `logFile`; after `timeoutMs` its group is killed and it counts as failed.
 */
export function startCommand(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  logFile: string,
  timeoutMs: number,
): RunningCommand {
  const started = Date.now();
  const child = spawn("npm", [...args], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const chunks: Buffer[] = [];
  const log = fs.createWriteStream(logFile, { flags: "a" });
  log.write(`\n===== npm ${args.join(" ")} (${new Date().toISOString()})\n`);
  for (const stream of [child.stdout!, child.stderr!])
    stream.on("data", (d: Buffer) => {
      chunks.push(d);
      log.write(d);
    });
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // gone
    }
  };
  const timer = setTimeout(() => signal("SIGKILL"), timeoutMs);
  const done = new Promise<CommandRun>((resolve) =>
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      log.end();
      resolve({
        code,
        signal: sig,
        output: Buffer.concat(chunks).toString("utf8"),
        seconds: (Date.now() - started) / 1000,
      });
    }),
  );
  return { pid: child.pid!, signal, done };
}

/** Runs `npm <args>` to its end (see {@link startCommand}). */
export function runCommand(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  logFile: string,
  timeoutMs: number,
): Promise<CommandRun> {
  return startCommand(args, env, logFile, timeoutMs).done;
}

/**
 * The resources line(s) of the last `pulumi up` summary in `output` (`Resources:` up to `Duration:`),
 * e.g. `["227 unchanged"]` for an up that changed nothing.
 */
export function lastResourcesSummary(output: string): string[] {
  const at = output.lastIndexOf("Resources:");
  if (at < 0) return [];
  const block = output.slice(at + "Resources:".length);
  const end = block.indexOf("Duration:");
  return (end < 0 ? block : block.slice(0, end))
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/** A new machine for a suite: its cache, environment, the commands' log, and `npm` run on it. */
export interface NewMachine {
  /** Its cache directory (`PULUMI_KARMADA_CACHE` of every command). */
  readonly cache: string;
  /** Where every command's output is appended. */
  readonly log: string;
  readonly env: Readonly<Record<string, string>>;
  /** Seconds each `npm` call took, by its label. */
  readonly timings: Record<string, number>;
  /** Runs `npm <args>` to its end, expecting success (else it throws with its last lines); its output. */
  npm(label: string, args: readonly string[], timeoutMs: number): Promise<string>;
  /** Removes the cache (unless PK_KEEP_TESTBED is set). */
  remove(): void;
}

/** A new machine with an empty cache in a new temporary directory (seed it with {@link seedCache}). */
export function newMachine(): NewMachine {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "pk-new-machine-"));
  const log = path.join(cache, "commands.log");
  const env = newMachineEnv(cache);
  const timings: Record<string, number> = {};
  return {
    cache,
    log,
    env,
    timings,
    npm: async (label, args, timeoutMs) => {
      const run = await runCommand(args, env, log, timeoutMs);
      timings[label] = run.seconds;
      if (run.code !== 0) {
        throw new Error(
          `npm ${args.join(" ")} ended with ${run.code ?? run.signal} after ${run.seconds} s; its last lines:\n` +
            run.output.split("\n").slice(-40).join("\n"),
        );
      }
      return run.output;
    },
    remove: () => {
      if (!process.env.PK_KEEP_TESTBED) fs.rmSync(cache, { recursive: true, force: true });
    },
  };
}
