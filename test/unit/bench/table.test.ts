import { figureOf } from "../../../bench/support/figures";
import {
  DatedFigure,
  figuresInDocument,
  mergeFigures,
  TABLE_END,
  TABLE_START,
  withTable,
} from "../../../bench/support/table";

const figure = (bench: string, id: string, value: number, date: string): DatedFigure => ({
  ...figureOf({
    bench,
    id,
    figure: id,
    ours: [value],
    baselineLabel: "bare",
    baseline: [1000],
    target: { kind: "ratio", max: 1.2 },
  }),
  date,
});

describe("docs/performance.md table", () => {
  test("a new run replaces its own rows and keeps the other benches' rows with their dates", () => {
    const earlier = [
      figure("graph", "graph.n10", 1500, "2026-11-01"),
      figure("etcd-hosts", "etcd-hosts.bring-up", 2000, "2026-11-01"),
    ];
    const merged = mergeFigures(earlier, [figure("graph", "graph.n10", 1100, "2026-11-23")]);
    expect(merged.map((f) => [f.id, f.value, f.date])).toEqual([
      ["etcd-hosts.bring-up", 2000, "2026-11-01"],
      ["graph.n10", 1100, "2026-11-23"],
    ]);
  });

  test("the table round-trips through the document and replaces only the text between its markers", () => {
    const doc = `# Performance\n\nintro\n\n${TABLE_START}\nold\n${TABLE_END}\n\n## Where the time goes\n`;
    const figures = [figure("graph", "graph.n100", 1300, "2026-11-23")];
    const written = withTable(doc, figures);
    expect(written.startsWith("# Performance\n\nintro\n\n")).toBe(true);
    expect(written.endsWith(`${TABLE_END}\n\n## Where the time goes\n`)).toBe(true);
    expect(written).not.toContain("\nold\n");
    expect(written).toContain(
      "| graph.n100 | 1.30 s | bare: 1.00 s | 1.30× | ≤ 1.2× | **no** | 1 (0 %) | 2026-11-23 |",
    );
    expect(figuresInDocument(written)).toEqual(figures);
  });

  test("a document without a table gets one appended; one without figures reads as none", () => {
    expect(figuresInDocument("# Performance\n")).toEqual([]);
    const written = withTable("# Performance\n", [figure("graph", "graph.n1", 900, "2026-11-23")]);
    expect(written.indexOf(TABLE_START)).toBeGreaterThan(0);
    expect(figuresInDocument(written)).toHaveLength(1);
  });
});
