/**
 * Pid files of the test bed's background processes (devkit/processes.ts): stopping what a pid file
 * records signals only the process that was started, never one that got its pid later (issue 33, item 7).
 * Real processes (`sleep`), no mocks.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
  commandLineMatches,
  isRecordedProcessRunning,
  isRunning,
  processCommandLine,
  processStartTime,
  readPidFile,
  recordedGroupAction,
  startProcess,
  stopRecordedProcesses,
} from "../../../devkit/processes";

/** Waits until `pid` has exec'd into `commandLine` (a spawned process reads its new one shortly after). */
async function waitForCommandLine(pid: number, commandLine: string[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (JSON.stringify(processCommandLine(pid)) !== JSON.stringify(commandLine) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(processCommandLine(pid)).toEqual(commandLine);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-processes-"));
const started: number[] = [];
afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A process we started ourselves, outside any pid file: the stand-in for someone else's process. */
function unrelatedProcess(): number {
  const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
  child.unref();
  started.push(child.pid!);
  return child.pid!;
}

describe("pid files record the process, not just its pid", () => {
  test("startProcess writes pid and start time; the record names that running process", () => {
    const proc = startProcess(tmp, "sleeper", "sleep", ["60"], { PATH: process.env.PATH ?? "" });
    started.push(proc.pid);
    const recorded = readPidFile(proc.pidPath)!;
    expect(recorded.pid).toBe(proc.pid);
    expect(recorded.startTime).toMatch(/^\d+$/);
    expect(recorded.startTime).toBe(processStartTime(proc.pid));
    expect(recorded.commandLine).toEqual(["sleep", "60"]);
    expect(isRecordedProcessRunning(recorded)).toBe(true);
    expect(recordedGroupAction(recorded)).toBe("stop");
  });

  test("stopRecordedProcesses stops the recorded process and removes its pid file", async () => {
    const proc = startProcess(tmp, "stopped", "sleep", ["60"], { PATH: process.env.PATH ?? "" });
    started.push(proc.pid);
    await stopRecordedProcesses(tmp, ["stopped"]);
    expect(isRunning(proc.pid)).toBe(false);
    expect(fs.existsSync(proc.pidPath)).toBe(false);
  });

  test("a pid now used by another process (start time differs) is left alone", async () => {
    const other = unrelatedProcess();
    const pidPath = path.join(tmp, "reused.pid");
    // what a pid file looks like once its process is gone and the pid went to someone else
    fs.writeFileSync(pidPath, `${other} 1\n`);
    const stderr = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(isRecordedProcessRunning(readPidFile(pidPath))).toBe(false);
      expect(recordedGroupAction(readPidFile(pidPath)!)).toBe("leave");
      await stopRecordedProcesses(tmp, ["reused"]);
      expect(stderr).toHaveBeenCalledWith(expect.stringContaining(`pid ${other} is not the process`));
    } finally {
      stderr.mockRestore();
    }
    expect(isRunning(other)).toBe(true);
    expect(fs.existsSync(pidPath)).toBe(false);
  });

  test("a pid whose start time matches but whose command line does not is left alone", async () => {
    const other = unrelatedProcess();
    await waitForCommandLine(other, ["sleep", "60"]);
    const pidPath = path.join(tmp, "other-command.pid");
    // same pid and start time, another program's command line: not the process we started
    fs.writeFileSync(
      pidPath,
      `${other} ${processStartTime(other)}\n${JSON.stringify(["etcd", "--name", "e1"])}\n`,
    );
    const stderr = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(isRecordedProcessRunning(readPidFile(pidPath))).toBe(false);
      expect(recordedGroupAction(readPidFile(pidPath)!)).toBe("leave");
      await stopRecordedProcesses(tmp, ["other-command"]);
    } finally {
      stderr.mockRestore();
    }
    expect(isRunning(other)).toBe(true);
  });

  test("a process started through a wrapper that execs its arguments (the lab's enter.sh) is still ours", async () => {
    const wrapper = path.join(tmp, "enter.sh");
    fs.writeFileSync(wrapper, '#!/bin/bash\nexec "$@"\n', { mode: 0o755 });
    const proc = startProcess(tmp, "wrapped", wrapper, ["sleep", "61"], { PATH: process.env.PATH ?? "" });
    started.push(proc.pid);
    await waitForCommandLine(proc.pid, ["sleep", "61"]);
    expect(isRecordedProcessRunning(readPidFile(proc.pidPath))).toBe(true);
    await stopRecordedProcesses(tmp, ["wrapped"]);
    expect(isRunning(proc.pid)).toBe(false);
  });

  test("a pid file without a start time (written before they were recorded) vouches for nothing", async () => {
    const other = unrelatedProcess();
    const pidPath = path.join(tmp, "legacy.pid");
    fs.writeFileSync(pidPath, `${other}\n`);
    const stderr = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(readPidFile(pidPath)).toEqual({ pid: other, startTime: undefined });
      expect(isRecordedProcessRunning(readPidFile(pidPath))).toBe(false);
      await stopRecordedProcesses(tmp, ["legacy"]);
    } finally {
      stderr.mockRestore();
    }
    expect(isRunning(other)).toBe(true);
  });

  test("a recorded process that is gone, its pid unused: only its own group is swept", () => {
    const proc = spawn("true", [], { stdio: "ignore" });
    return new Promise<void>((resolve) =>
      proc.on("exit", () => {
        expect(recordedGroupAction({ pid: proc.pid!, startTime: "1" })).toBe("sweep");
        resolve();
      }),
    );
  });

  test("a pid file with a start time but no command line (written before they were recorded) vouches for nothing", () => {
    const other = unrelatedProcess();
    const pidPath = path.join(tmp, "no-command.pid");
    fs.writeFileSync(pidPath, `${other} ${processStartTime(other)}\n`);
    expect(readPidFile(pidPath)?.commandLine).toBeUndefined();
    expect(isRecordedProcessRunning(readPidFile(pidPath))).toBe(false);
  });

  test("missing, empty or garbled pid files record nothing", () => {
    expect(readPidFile(path.join(tmp, "none.pid"))).toBeUndefined();
    for (const [name, text] of [
      ["empty", ""],
      ["words", "not a pid"],
      ["init", "1 5"],
    ]) {
      fs.writeFileSync(path.join(tmp, `${name}.pid`), text);
      expect(readPidFile(path.join(tmp, `${name}.pid`))).toBeUndefined();
    }
  });

  test("a command name with spaces and parentheses does not shift the start time", async () => {
    // a program named like that: its /proc stat line reads `<pid> (odd) (name) S …`
    const odd = path.join(tmp, "odd) (name");
    fs.copyFileSync("/bin/sleep", odd);
    fs.chmodSync(odd, 0o755);
    const proc = startProcess(tmp, "odd", odd, ["60"], { PATH: process.env.PATH ?? "" });
    started.push(proc.pid);
    await new Promise((r) => setTimeout(r, 100)); // exec done: the stat line carries the new name
    expect(fs.readFileSync(`/proc/${proc.pid}/stat`, "utf8")).toContain("(odd) (name)");
    const startTime = processStartTime(proc.pid)!;
    expect(startTime).toBe(readPidFile(proc.pidPath)!.startTime);
    // a start time is not before ours (we started it)
    expect(Number(startTime)).toBeGreaterThanOrEqual(Number(processStartTime(process.pid)));
  });
});

describe("commandLineMatches: the recorded arguments are the tail of the current command line", () => {
  const launched = ["/run/lab/enter.sh", "/cache/bin/karmada-agent", "--cluster-name=m3"];
  test.each([
    ["started directly, unchanged", ["etcd", "--name=e1"], ["etcd", "--name=e1"], true],
    ["the wrapper itself, before it execs", launched, ["/bin/bash", ...launched], true],
    ["the wrapper exec'd nsenter", launched, ["nsenter", "--net=/run/netns/m3", ...launched.slice(1)], true],
    ["the wrapper's command, finally", launched, launched.slice(1), true],
    [
      "a command started with no arguments",
      ["/run/lab/machine.sh"],
      ["/bin/bash", "/run/lab/machine.sh"],
      true,
    ],
    ["another program", ["etcd", "--name=e1"], ["sleep", "60"], false],
    ["the same program, other arguments", launched, ["/cache/bin/karmada-agent", "--cluster-name=m2"], false],
    ["an empty command line", ["etcd"], [], false],
    ["an empty record", [], ["etcd"], false],
  ])("%s", (_, recorded, current, expected) => {
    expect(commandLineMatches(recorded, current)).toBe(expected);
  });
});
