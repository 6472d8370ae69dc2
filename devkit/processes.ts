/**
 * Background processes of a loopback cluster: each runs in its own process group (so stopping it also
 * stops anything it forked), logs to a file, and is recorded in a pid file, so a later process (the
 * sandbox's down.sh) can stop what an earlier one started.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

/** A process started by {@link startProcess}. */
export interface BackgroundProcess {
  /** Short name: also the base name of its pid and log files. */
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  readonly pidPath: string;
}

/** Whether a process with this pid exists (and is not a zombie we could reap). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // a zombie still answers kill(0); /proc tells it apart
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return true;
  }
}

/**
 * Starts `command args` detached in a new process group, stdout and stderr appended to
 * `<runDir>/<name>.log`, pid written to `<runDir>/<name>.pid`. The child does not keep the caller alive.
 */
export function startProcess(
  runDir: string,
  name: string,
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): BackgroundProcess {
  fs.mkdirSync(runDir, { recursive: true });
  const logPath = path.join(runDir, `${name}.log`);
  const pidPath = path.join(runDir, `${name}.pid`);
  const log = fs.openSync(logPath, "a");
  const child = spawn(command, [...args], { detached: true, stdio: ["ignore", log, log], env: { ...env } });
  fs.closeSync(log);
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  child.unref();
  fs.writeFileSync(pidPath, `${child.pid}\n`);
  return { name, pid: child.pid, logPath, pidPath };
}

/** Last `lines` lines of a log file, for error messages. */
export function logTail(logPath: string, lines = 20): string {
  try {
    return fs.readFileSync(logPath, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops the process group led by `pid`: SIGTERM, then SIGKILL after `graceMs`. Only ever signals the
 * group of a pid we recorded ourselves.
 */
export async function stopProcessGroup(pid: number, graceMs = 10_000): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // group already gone
    }
  };
  if (!isRunning(pid)) {
    signal("SIGKILL"); // stragglers the leader left behind
    return;
  }
  signal("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (isRunning(pid) && Date.now() < deadline) await sleep(100);
  signal("SIGKILL");
  while (isRunning(pid) && Date.now() < deadline + 5_000) await sleep(100);
}

/** Stops the processes recorded in the pid files of `runDir` (in reverse start order) and removes the pid files. */
export async function stopRecordedProcesses(runDir: string, order: readonly string[]): Promise<void> {
  for (const name of [...order].reverse()) {
    const pidPath = path.join(runDir, `${name}.pid`);
    if (!fs.existsSync(pidPath)) continue;
    const pid = Number(fs.readFileSync(pidPath, "utf8").trim());
    if (Number.isInteger(pid) && pid > 1) await stopProcessGroup(pid);
    fs.rmSync(pidPath, { force: true });
  }
}
