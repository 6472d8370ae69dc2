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

/**
 * The command line of the process `pid` (`/proc/<pid>/cmdline`, one entry per argument), undefined when
 * no such process exists (or it is a zombie, whose command line is empty).
 */
export function processCommandLine(pid: number): string[] | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return text === "" ? undefined : text.replace(/\0$/, "").split("\0");
  } catch {
    return undefined;
  }
}

/**
 * What a pid file records: the process's pid, start time and the command line it was started with
 * (undefined in files written before they were recorded).
 */
export interface RecordedProcess {
  readonly pid: number;
  readonly startTime?: string;
  readonly commandLine?: readonly string[];
}

/**
 * The process a pid file records (`<pid> <start time>`, then the command line as a JSON list on the
 * second line); undefined when the file is missing or unreadable.
 */
export function readPidFile(pidPath: string): RecordedProcess | undefined {
  let text: string;
  try {
    text = fs.readFileSync(pidPath, "utf8");
  } catch {
    return undefined;
  }
  const [first = "", second] = text.split("\n");
  const [pidText, startTime] = first.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  let commandLine: string[] | undefined;
  try {
    const parsed: unknown = second ? JSON.parse(second) : undefined;
    commandLine = Array.isArray(parsed) && parsed.every((a) => typeof a === "string") ? parsed : undefined;
  } catch {
    commandLine = undefined;
  }
  return { pid, startTime, commandLine };
}

/**
 * Whether a running process's command line is the one recorded for it. A process started through a
 * wrapper that execs the rest of its arguments (the lab's `enter.sh binary args…`, which becomes
 * `nsenter … binary args…`, then `binary args…`) keeps those arguments as the tail of its command line,
 * so the current one must end with the recorded arguments (the whole recorded line when it has none).
 */
export function commandLineMatches(recorded: readonly string[], current: readonly string[]): boolean {
  const tail = recorded.length > 1 ? recorded.slice(1) : recorded;
  if (tail.length === 0 || current.length < tail.length) return false;
  const offset = current.length - tail.length;
  return tail.every((arg, i) => current[offset + i] === arg);
}

/**
 * Whether the process a pid file records is still that process: running, with the recorded start time
 * and command line. A pid reused by another process (the recorded one exited, e.g. across a reboot) is
 * not it; a file without a start time or command line names no process we can vouch for.
 */
export function isRecordedProcessRunning(recorded: RecordedProcess | undefined): boolean {
  if (!recorded?.startTime || !recorded.commandLine || !isRunning(recorded.pid)) return false;
  if (processStartTime(recorded.pid) !== recorded.startTime) return false;
  const current = processCommandLine(recorded.pid);
  return current !== undefined && commandLineMatches(recorded.commandLine, current);
}

/**
 * Starts `command args` detached in a new process group, stdout and stderr appended to
 * `<runDir>/<name>.log`, pid, start time and command line written to `<runDir>/<name>.pid`. The child does not keep the
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
  const record = `${child.pid} ${processStartTime(child.pid) ?? ""}\n${JSON.stringify([command, ...args])}\n`;
  fs.writeFileSync(pidPath, record);
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
 * or the file has no start time and command line to check it against). Pure but for reading /proc.
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
          `${name}: pid ${recorded.pid} is not the process ${pidPath} recorded (reused, or no start time and command line recorded): left alone\n`,
        );
      } else {
        await stopProcessGroup(recorded.pid);
      }
    }
    fs.rmSync(pidPath, { force: true });
  }
}
