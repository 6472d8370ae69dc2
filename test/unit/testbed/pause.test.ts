/**
 * Our pause program (devkit/images/pause), the first process of every pod sandbox the test bed's pause
 * image starts: built from source here, it ends with status 0 within a second of SIGTERM or SIGINT (what
 * the runtime sends to stop a sandbox), and as the init of a PID namespace it reaps the orphans
 * re-parented to it.
 */
import { ChildProcess, execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { REPO_ROOT } from "../../../devkit/testbed";
import { describeWithGo } from "../../support/upstream";

const PAUSE_DIR = path.join(REPO_ROOT, "devkit/images/pause");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with how the process ended and how long after `since` it did. */
function exited(
  child: ChildProcess,
  since: () => number,
): Promise<{ code: number | null; signal: string | null; ms: number }> {
  return new Promise((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, ms: Date.now() - since() })),
  );
}

/** The processes whose parent is `pid`: "<pid> <state>" lines ("" when none: ps then exits 1). */
function childrenOf(pid: number): string {
  try {
    return execFileSync("ps", ["-o", "pid=,stat=", "--ppid", String(pid)], { encoding: "utf8" }).trim();
  } catch (e) {
    if ((e as { status?: number }).status === 1) return "";
    throw e;
  }
}

describeWithGo("pause (devkit/images/pause)", "go build of devkit/images/pause", () => {
  let tmp: string;
  let bin: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-pause-"));
    bin = path.join(tmp, "pause");
    execFileSync("go", ["build", "-trimpath", "-ldflags", "-X main.version=test", "-o", bin, "."], {
      cwd: PAUSE_DIR,
      env: { ...process.env, CGO_ENABLED: "0", GOWORK: "off", GOFLAGS: "-buildvcs=false" },
      stdio: ["ignore", "pipe", "pipe"],
    });
  }, 120_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it.each(["SIGTERM", "SIGINT"] as const)("exits 0 within a second of %s", async (signal) => {
    const child = spawn(bin, [], { stdio: "ignore" });
    await sleep(500); // past the Go runtime's start, when its handlers are in place
    expect(child.exitCode).toBeNull(); // it sleeps until told to stop
    let sentAt = 0;
    const done = exited(child, () => sentAt);
    sentAt = Date.now();
    child.kill(signal);
    const result = await done;
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    expect(result.ms).toBeLessThan(1000);
  });

  it("-v prints the version it was built with; any other argument is refused, naming it", () => {
    expect(execFileSync(bin, ["-v"], { encoding: "utf8" })).toBe("pause (pulumi-karmada test bed) test\n");
    let stderr = "";
    try {
      execFileSync(bin, ["--bogus"], { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
    } catch (e) {
      stderr = String((e as { stderr?: string }).stderr);
      expect((e as { status?: number }).status).toBe(2);
    }
    expect(stderr).toContain('unknown argument "--bogus"');
  });

  // a PID namespace needs root (CI and the lab run as root)
  (process.getuid?.() === 0 ? it : it.skip)(
    "as PID 1 of a PID namespace it reaps orphans re-parented to it (needs root)",
    async () => {
      const unshare = spawn("unshare", ["--pid", "--fork", bin], { stdio: "ignore" });
      let pause = 0;
      try {
        await sleep(500);
        pause = Number(execFileSync("pgrep", ["-P", String(unshare.pid)], { encoding: "utf8" }).trim());
        expect(pause).toBeGreaterThan(0);
        // a shell in the namespace starts two sleeps and exits: they become children of pause (stdio
        // ignored, or execFileSync would wait for the sleeps holding its pipes)
        const script = "sleep 0.6 & sleep 0.6 & exit";
        execFileSync("nsenter", ["--target", String(pause), "--pid", "sh", "-c", script], {
          stdio: "ignore",
        });
        await sleep(200);
        expect(childrenOf(pause).split("\n")).toHaveLength(2);
        await sleep(1000); // they have exited: without reaping they would stay as zombies (state Z)
        expect(childrenOf(pause)).toBe("");
        const done = exited(unshare, () => 0);
        process.kill(pause, "SIGTERM");
        expect((await done).code).toBe(0);
      } finally {
        if (unshare.exitCode === null) {
          if (pause > 0) process.kill(pause, "SIGKILL");
          unshare.kill("SIGKILL");
        }
      }
    },
  );
});
