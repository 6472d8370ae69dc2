/**
 * Where a wall-time figure's CPU went: the whole machine's busy time over a span (/proc/stat) and the
 * share of each program (/proc/<pid>/stat, sampled, grouped by the basename of argv[0]). On a 2-core
 * machine a span whose busy time is close to 2 × its wall time was limited by the CPU, not by waiting:
 * its floor is busy time / cores, whatever the order of the work.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename } from "node:path";

/** CPU time of one span. */
export interface CpuUse {
  readonly wallMs: number;
  /** CPU time of the whole machine (every core, every process, the kernel). */
  readonly busyMs: number;
  readonly cores: number;
  /** Per program, most first; processes that lived shorter than a sample interval may be missed. */
  readonly byProgram: readonly { readonly program: string; readonly ms: number }[];
}

/** Busy and idle clock ticks summed over all cores, from the `cpu` line of /proc/stat. */
export function parseMachineTicks(procStat: string): { busy: number; idle: number } {
  const line = procStat.split("\n").find((l) => l.startsWith("cpu "));
  if (!line) throw new Error("/proc/stat has no cpu line");
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { busy: user + nice + system + irq + softirq + (steal ?? 0), idle: idle + iowait };
}

/** utime + stime of a process in clock ticks, from /proc/<pid>/stat (the name may hold spaces and parentheses). */
export function parseProcessTicks(pidStat: string): number {
  const fields = pidStat.slice(pidStat.lastIndexOf(")") + 2).split(" ");
  // after the name: state(3) … utime(14) stime(15), 1-based as in proc(5)
  return Number(fields[14 - 3]) + Number(fields[15 - 3]);
}

/**
 * The program a process runs: basename of argv[0] of its NUL-separated command line; for Node.js, with
 * the last script it names (`node sandbox/network.ts`, `node dynamic-provider/index.js`): the Pulumi
 * program, the dynamic-provider host, the test bed's proxies and the bench itself are all `node`.
 */
export function programOf(cmdline: string): string {
  const [argv0, ...args] = cmdline.split("\0").filter((a) => a !== "");
  const program = basename(argv0 ?? "") || "?";
  if (program !== "node" && program !== "nodejs") return program;
  const script = args.filter((a) => /\.[cm]?[jt]s$/.test(a) && !a.includes("ts-node/dist")).pop();
  return script ? `node ${script.split("/").slice(-2).join("/")}` : program;
}

/** Per-program CPU from process samples: each pid's last ticks minus the ticks it had when first seen. */
export function cpuByProgram(
  samples: ReadonlyMap<number, { program: string; first: number; last: number }>,
  msPerTick: number,
): { program: string; ms: number }[] {
  const byProgram = new Map<string, number>();
  for (const { program, first, last } of samples.values()) {
    byProgram.set(program, (byProgram.get(program) ?? 0) + (last - first) * msPerTick);
  }
  return [...byProgram.entries()]
    .map(([program, ms]) => ({ program, ms }))
    .filter((p) => p.ms > 0)
    .sort((a, b) => b.ms - a.ms);
}

const readOrUndefined = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // the process exited between listing and reading
  }
};

/** Measures one span: `start()`, run the work, `stop()`. */
export class CpuMeter {
  private readonly msPerTick = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());
  private readonly processes = new Map<number, { program: string; first: number; last: number }>();
  private machineAtStart = { busy: 0, idle: 0 };
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly sampleMs = 200) {}

  start(): void {
    this.processes.clear();
    this.sample(true);
    this.machineAtStart = parseMachineTicks(readFileSync("/proc/stat", "utf8"));
    this.startedAt = performance.now();
    this.timer = setInterval(() => this.sample(false), this.sampleMs);
  }

  stop(): CpuUse {
    clearInterval(this.timer);
    this.sample(false);
    const machine = parseMachineTicks(readFileSync("/proc/stat", "utf8"));
    return {
      wallMs: performance.now() - this.startedAt,
      busyMs: (machine.busy - this.machineAtStart.busy) * this.msPerTick,
      cores: availableParallelism(),
      byProgram: cpuByProgram(this.processes, this.msPerTick),
    };
  }

  /** Reads every process; one running before the span counts from its ticks then, a new one from zero. */
  private sample(atStart: boolean): void {
    for (const entry of readdirSync("/proc")) {
      const pid = Number(entry);
      if (!Number.isInteger(pid)) continue;
      const stat = readOrUndefined(`/proc/${pid}/stat`);
      if (stat === undefined) continue;
      const ticks = parseProcessTicks(stat);
      const known = this.processes.get(pid);
      if (known) {
        known.last = Math.max(known.last, ticks);
        continue;
      }
      const program = programOf(readOrUndefined(`/proc/${pid}/cmdline`) ?? "");
      this.processes.set(pid, { program, first: atStart ? ticks : 0, last: ticks });
    }
  }
}

/** One line for people: busy time, cores in use on average, the programs that used most. */
export function describeCpuUse(use: CpuUse, limit = 6): string {
  const busy = (use.busyMs / 1000).toFixed(1);
  const inUse = (use.busyMs / Math.max(1, use.wallMs)).toFixed(2);
  const top = use.byProgram
    .slice(0, limit)
    .map((p) => `${p.program} ${(p.ms / 1000).toFixed(1)} s`)
    .join(", ");
  return `    CPU: ${busy} s busy over ${(use.wallMs / 1000).toFixed(1)} s (${inUse} of ${use.cores} cores); ${top}`;
}
