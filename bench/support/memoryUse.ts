/**
 * Where a span's memory went: resident set sizes sampled from /proc/<pid>/status, summed per role at
 * each sample, the peak of each sum kept. The roles of a `pulumi up`: the engine (the CLI and its
 * language host), the provider plugins (one process per provider instance), the Pulumi program (Node.js
 * running the stacks program) and dynamic-provider hosts.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The role of a process in a `pulumi up`, from its command line, or undefined for any other process. */
export function roleOf(cmdline: string): Role | undefined {
  const [argv0 = "", ...args] = cmdline.split("\0").filter((a) => a !== "");
  const program = argv0.split("/").pop() ?? "";
  if (program.startsWith("pulumi-resource-")) return "providers";
  if (program === "pulumi" || program.startsWith("pulumi-language-")) return "engine";
  if (program !== "node" && program !== "nodejs") return undefined;
  if (args.some((a) => a.includes("dynamic-provider"))) return "dynamic providers";
  if (args.some((a) => /@pulumi\/pulumi\/cmd\/run/.test(a))) return "program";
  return undefined;
}

export type Role = "engine" | "providers" | "program" | "dynamic providers";
const ROLES: readonly Role[] = ["engine", "providers", "program", "dynamic providers"];

/** Resident set size in KiB from /proc/<pid>/status (`VmRSS:  12345 kB`), 0 for a kernel thread. */
export function parseRssKib(status: string): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) : 0;
}

/** Peaks of one span: per role (MiB, the peak of the role's sum) and of the most processes per role. */
export interface MemoryUse {
  readonly peakMib: Readonly<Record<Role, number>>;
  /** Peak of engine + providers + program + dynamic providers at one sample. */
  readonly totalPeakMib: number;
  readonly peakProcesses: Readonly<Record<Role, number>>;
}

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/** Samples every `sampleMs` between start() and stop(). */
export class MemoryMeter {
  private readonly peaks = emptyByRole();
  private readonly processes = emptyByRole();
  private totalPeak = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly sampleMs = 250) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), this.sampleMs);
  }

  stop(): MemoryUse {
    clearInterval(this.timer);
    this.sample();
    const mib = (kib: number) => kib / 1024;
    return {
      peakMib: Object.fromEntries(ROLES.map((r) => [r, mib(this.peaks[r])])) as Record<Role, number>,
      totalPeakMib: mib(this.totalPeak),
      peakProcesses: { ...this.processes },
    };
  }

  private sample(): void {
    const now = emptyByRole();
    const count = emptyByRole();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const role = roleOf(read(`/proc/${entry}/cmdline`) ?? "");
      if (!role) continue;
      now[role] += parseRssKib(read(`/proc/${entry}/status`) ?? "");
      count[role] += 1;
    }
    for (const role of ROLES) {
      this.peaks[role] = Math.max(this.peaks[role], now[role]);
      this.processes[role] = Math.max(this.processes[role], count[role]);
    }
    this.totalPeak = Math.max(
      this.totalPeak,
      ROLES.reduce((sum, r) => sum + now[r], 0),
    );
  }
}

function emptyByRole(): Record<Role, number> {
  return { engine: 0, providers: 0, program: 0, "dynamic providers": 0 };
}

/** One line for people: each role's peak and process count. */
export function describeMemoryUse(use: MemoryUse): string {
  const roles = ROLES.map(
    (r) =>
      `${r} ${use.peakMib[r].toFixed(0)} MiB (${use.peakProcesses[r]} process${use.peakProcesses[r] === 1 ? "" : "es"})`,
  ).join(", ");
  return `    memory peaks: ${roles}; all together ${use.totalPeakMib.toFixed(0)} MiB`;
}
