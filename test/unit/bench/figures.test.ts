import {
  describeFigure,
  figureOf,
  FIGURE_LINE_PREFIX,
  median,
  parseFigures,
  relativeSpread,
  reportFigure,
} from "../../../bench/support/figures";

const sample = (ours: number[], baseline: number[], max = 1.3) =>
  figureOf({
    bench: "etcd-hosts",
    id: "etcd-hosts.bring-up",
    figure: "bring-up",
    ours,
    baselineLabel: "plain script",
    baseline,
    target: { kind: "ratio", max },
  });

describe("bench figures", () => {
  test("median takes the middle value (the lower middle of an even count), whatever the order", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2);
    expect(median([7])).toBe(7);
    expect(() => median([])).toThrow("median of no values");
  });

  test("spread is (max - min) / median, 0 for identical runs", () => {
    expect(relativeSpread([10, 10, 10])).toBe(0);
    expect(relativeSpread([9, 10, 12])).toBeCloseTo(0.3);
  });

  test("a ratio target holds at or under its maximum and not above", () => {
    expect(sample([1300, 1300, 1300], [1000, 1000, 1000]).met).toBe(true);
    const over = sample([1400, 1310, 1350], [1000, 1000, 1000]);
    expect(over.met).toBe(false);
    expect(over.ratio).toBeCloseTo(1.35);
    expect(over.runs).toBe(3);
  });

  test("a seconds target judges the wall time itself; the baseline is only printed beside it", () => {
    const f = figureOf({
      bench: "binary-estate",
      id: "binary-estate.up",
      figure: "up from nothing",
      ours: [59_000, 61_000, 58_000],
      baselineLabel: "processes' own start",
      baseline: [20_000, 21_000, 22_000],
      target: { kind: "seconds", max: 60 },
    });
    expect(f.met).toBe(true);
    expect(describeFigure(f)).toContain("59.00 s vs processes' own start 21.00 s");
  });

  test("what reportFigure prints is read back by parseFigures; other lines are ignored", () => {
    const lines: string[] = [];
    const log = jest.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    const f = sample([1200], [1000]);
    reportFigure(f);
    log.mockRestore();
    expect(lines.filter((l) => l.startsWith(FIGURE_LINE_PREFIX))).toHaveLength(1);
    expect(parseFigures(["noise", ...lines, "more noise"].join("\n"))).toEqual([f]);
  });
});
