/**
 * The figures table of docs/performance.md: rendered from bench figures, merged with the rows already
 * there so a run of one bench updates its rows and keeps the others (with the date each was measured).
 */
import { BenchFigure } from "./figures";

/** Markers around the generated table in docs/performance.md. */
export const TABLE_START = "<!-- bench-table:start (npm run bench rewrites this table) -->";
export const TABLE_END = "<!-- bench-table:end -->";

/** A figure with the day it was measured (YYYY-MM-DD). */
export interface DatedFigure extends BenchFigure {
  readonly date: string;
}

/** `earlier` with every figure of `latest` replacing the one of the same id; order: by bench, then id. */
export function mergeFigures(earlier: readonly DatedFigure[], latest: readonly DatedFigure[]): DatedFigure[] {
  const byId = new Map(earlier.map((f) => [f.id, f]));
  for (const f of latest) byId.set(f.id, f);
  return [...byId.values()].sort((a, b) => a.bench.localeCompare(b.bench) || a.id.localeCompare(b.id));
}

function amount(f: BenchFigure, v: number): string {
  return f.unit === "ms" ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} MiB`;
}

function target(f: BenchFigure): string {
  return f.target.kind === "ratio" ? `≤ ${f.target.max}×` : `≤ ${f.target.max} s`;
}

/** The markdown table, between its markers; each row carries its figure as JSON so it can be merged. */
function renderTable(figures: readonly DatedFigure[]): string {
  const header = [
    "| Figure | Ours | Baseline | Ratio | Target | Met | Runs (spread) | Date |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  const rows = figures.map(
    (f) =>
      `| ${f.figure} | ${amount(f, f.value)} | ${f.baselineLabel}: ${amount(f, f.baseline)} | ${f.ratio.toFixed(2)}× | ` +
      `${target(f)} | ${f.met ? "yes" : "**no**"} | ${f.runs} (${(f.spread * 100).toFixed(0)} %) | ${f.date} |`,
  );
  const data = `<!-- bench-figures ${JSON.stringify(figures)} -->`;
  return [TABLE_START, ...header, ...rows, data, TABLE_END].join("\n");
}

/** The figures recorded in a document's table (none when it has no table yet). */
export function figuresInDocument(markdown: string): DatedFigure[] {
  const found = /<!-- bench-figures (.*) -->/.exec(markdown);
  return found ? (JSON.parse(found[1]) as DatedFigure[]) : [];
}

/** `markdown` with its table replaced by one of `figures` (appended when it has no markers yet). */
export function withTable(markdown: string, figures: readonly DatedFigure[]): string {
  const table = renderTable(figures);
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start < 0 || end < start) return `${markdown.trimEnd()}\n\n${table}\n`;
  return markdown.slice(0, start) + table + markdown.slice(end + TABLE_END.length);
}
