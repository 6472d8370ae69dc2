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
 * When the process `pid` started (clock ticks since boot, `/proc/<pid>/stat` field 22), undefined when no
 * such process exists. A pid is reused once its process is gone; pid and start time name one process.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name (field 2) may hold spaces and parentheses: count fields after its last ")"
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** What a pid file records: the process's pid and start time (undefined in files written before it was). */
export interface RecordedProcess {
  readonly pid: number;
  readonly startTime?: string;
}

/** The process a pid file records (`<pid> <start time>`); undefined when the file is missing or unreadable. */
export function readPidFile(pidPath: string): RecordedProcess | undefined {
  let text: string;
  try {
    text = fs.readFileSync(pidPath, "utf8");
  } catch {
    return undefined;
  }
  const [pidText, startTime] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 1 ? { pid, startTime } : undefined;
}

/**
 * Whether the process a pid file records is still that process: running, with the recorded start time.
 * A pid reused by another process (the recorded one exited, e.g. across a reboot) is not it; a file
 * without a start time names no process we can vouch for.
 */
export function isRecordedProcessRunning(recorded: RecordedProcess | undefined): boolean {
  if (!recorded?.startTime || !isRunning(recorded.pid)) return false;
  return processStartTime(recorded.pid) === recorded.startTime;
}

/**
 * Starts `command args` detached in a new process group, stdout and stderr appended to
 * `<runDir>/<name>.log`, pid and start time written to `<runDir>/<name>.pid`. The child does not keep the
 * caller alive.
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
  // the start time does not change at exec, so reading it after spawn returned is safe
  fs.writeFileSync(pidPath, `${child.pid} ${processStartTime(child.pid) ?? ""}\n`);
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

/**
 * What to do with the process group a pid file records: stop it (still our process), sweep it (our
 * leader is gone and nothing has its pid: only stragglers of ours can be in the group, since a pid is
 * not handed out while a process group still uses it), or leave it (the pid now names another process,
 * or the file has no start time to check it against). Pure but for reading /proc.
 */
export function recordedGroupAction(recorded: RecordedProcess): "stop" | "sweep" | "leave" {
  if (processStartTime(recorded.pid) === undefined) return "sweep";
  return isRecordedProcessRunning(recorded) ? "stop" : "leave";
}

/**
 * Stops the processes recorded in the pid files of `runDir` (in reverse start order) and removes the pid
 * files. Never signals a process it did not start: a pid now used by another process is left alone
 * (reported on stderr).
 */
export async function stopRecordedProcesses(runDir: string, order: readonly string[]): Promise<void> {
  for (const name of [...order].reverse()) {
    const pidPath = path.join(runDir, `${name}.pid`);
    const recorded = readPidFile(pidPath);
    if (recorded) {
      const action = recordedGroupAction(recorded);
      if (action === "leave") {
        process.stderr.write(
          `${name}: pid ${recorded.pid} is not the process ${pidPath} recorded (reused, or no start time recorded): left alone\n`,
        );
      } else {
        await stopProcessGroup(recorded.pid);
      }
    }
    fs.rmSync(pidPath, { force: true });
  }
}
