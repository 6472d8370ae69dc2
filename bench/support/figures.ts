/**
 * What every benchmark reports: figures measured side by side in one run, each with the baseline it is
 * compared to, the target it must meet, the number of runs and their spread. A bench prints one
 * `BENCH_FIGURE <json>` line per figure (see {@link reportFigure}); bench/run.ts collects them into
 * bench/results/latest.json and the table of docs/performance.md.
 */

/** Prefix of the line a bench prints per figure; everything else on stdout is for people. */
export const FIGURE_LINE_PREFIX = "BENCH_FIGURE ";

/** How a figure is judged. */
export type BenchTarget =
  /** `ours / baseline` must stay at or under `max`. */
  | { readonly kind: "ratio"; readonly max: number }
  /** The wall time (seconds) must stay at or under `max`; the baseline is printed beside it (the floor). */
  | { readonly kind: "seconds"; readonly max: number };

/** One measured figure. Times are medians in milliseconds unless `unit` says otherwise. */
export interface BenchFigure {
  /** Bench file that measured it, e.g. `etcd-hosts`. */
  readonly bench: string;
  /** Stable id, e.g. `etcd-hosts.bring-up`. */
  readonly id: string;
  /** What was measured, for the table. */
  readonly figure: string;
  /** `ms` (a time) or `MiB` (memory). */
  readonly unit: "ms" | "MiB";
  /** Median of ours. */
  readonly value: number;
  /** What it is compared to (a plain script, bare Pulumi, the processes' own time …). */
  readonly baselineLabel: string;
  /** Median of the baseline (same unit). */
  readonly baseline: number;
  /** value / baseline. */
  readonly ratio: number;
  readonly target: BenchTarget;
  /** Whether the target holds. */
  readonly met: boolean;
  /** Number of runs each median is taken over. */
  readonly runs: number;
  /** (max − min) / median of ours, as a fraction. */
  readonly spread: number;
  /** Anything a reader needs to interpret it (e.g. the engine's own floor). */
  readonly note?: string;
}

/** The median of `values` (the lower middle one for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** (max − min) / median: how far apart the runs were. */
export function relativeSpread(values: readonly number[]): number {
  const m = median(values);
  return m === 0 ? 0 : (Math.max(...values) - Math.min(...values)) / m;
}

/** Runs `fn` and returns how long it took in milliseconds, with its result. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
}

/** The figure from the raw samples of ours and the baseline (each median'd). */
export function figureOf(input: {
  bench: string;
  id: string;
  figure: string;
  unit?: "ms" | "MiB";
  ours: readonly number[];
  baselineLabel: string;
  baseline: readonly number[];
  target: BenchTarget;
  note?: string;
}): BenchFigure {
  const value = median(input.ours);
  const baseline = median(input.baseline);
  const ratio = baseline === 0 ? Number.POSITIVE_INFINITY : value / baseline;
  const met = input.target.kind === "ratio" ? ratio <= input.target.max : value / 1000 <= input.target.max;
  return {
    bench: input.bench,
    id: input.id,
    figure: input.figure,
    unit: input.unit ?? "ms",
    value,
    baselineLabel: input.baselineLabel,
    baseline,
    ratio,
    target: input.target,
    met,
    runs: Math.min(input.ours.length, input.baseline.length),
    spread: relativeSpread(input.ours),
    ...(input.note ? { note: input.note } : {}),
  };
}

/** A figure as one line for people: value, baseline, ratio, target, runs, spread. */
export function describeFigure(f: BenchFigure): string {
  const amount = (v: number) => (f.unit === "ms" ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} MiB`);
  const target = f.target.kind === "ratio" ? `ratio ≤ ${f.target.max}` : `≤ ${f.target.max} s`;
  return (
    `${f.met ? "MET    " : "NOT MET"} ${f.figure}: ${amount(f.value)} vs ${f.baselineLabel} ${amount(f.baseline)}` +
    ` → ${f.ratio.toFixed(2)}× (target ${target}; median of ${f.runs}, spread ${(f.spread * 100).toFixed(0)} %)` +
    (f.note ? ` — ${f.note}` : "")
  );
}

/** Prints the figure for people and as the machine-readable line bench/run.ts collects. */
export function reportFigure(f: BenchFigure): void {
  console.log(describeFigure(f));
  console.log(`${FIGURE_LINE_PREFIX}${JSON.stringify(f)}`);
}

/** The figures in a bench's stdout. */
export function parseFigures(stdout: string): BenchFigure[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith(FIGURE_LINE_PREFIX))
    .map((line) => JSON.parse(line.slice(FIGURE_LINE_PREFIX.length)) as BenchFigure);
}
