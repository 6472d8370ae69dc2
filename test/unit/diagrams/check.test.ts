import { checkReport, diagramFiles, dotFindings, svgFinding } from "../../../scripts/diagrams/check";

describe("dotFindings", () => {
  const generated = new Map([
    ["docs/diagrams/a.dot", "digraph a {}\n"],
    ["docs/diagrams/b.dot", "digraph b {}\n"],
    ["docs/diagrams/c.dot", "digraph c {}\n"],
  ]);
  const committed: Record<string, string> = {
    "docs/diagrams/a.dot": "digraph a {}\n",
    "docs/diagrams/b.dot": "digraph b { x; }\n",
  };

  test("a missing or different committed source is stale, naming the file; an equal one is fine", () => {
    expect(dotFindings(generated, (f) => committed[f])).toEqual([
      { file: "docs/diagrams/b.dot", severity: "stale", problem: expect.stringMatching(/differs/) },
      { file: "docs/diagrams/c.dot", severity: "stale", problem: "is missing" },
    ]);
  });
});

describe("svgFinding", () => {
  const base = { file: "docs/images/a.svg", localVersion: "2.43.0 (0)" };

  test("the committed picture is what this Graphviz renders from the committed source: fine", () => {
    expect(
      svgFinding({ ...base, committed: "<svg/>", renderedBy: "2.43.0 (0)", rerendered: "<svg/>" }),
    ).toBeUndefined();
  });

  test("a picture not rendered from the committed source is stale", () => {
    const finding = svgFinding({
      ...base,
      committed: "<svg>old</svg>",
      renderedBy: "2.43.0 (0)",
      rerendered: "<svg/>",
    });
    expect(finding).toMatchObject({ file: "docs/images/a.svg", severity: "stale" });
  });

  test("a picture another Graphviz rendered cannot be compared: noted, not failed", () => {
    const finding = svgFinding({
      ...base,
      committed: "<svg>x</svg>",
      renderedBy: "9.0.0",
      rerendered: "<svg/>",
    });
    expect(finding).toMatchObject({ severity: "unverified", problem: expect.stringContaining("9.0.0") });
  });

  test("a missing picture is stale", () => {
    expect(
      svgFinding({ ...base, committed: undefined, renderedBy: undefined, rerendered: "<svg/>" }),
    ).toMatchObject({
      severity: "stale",
      problem: "is missing",
    });
  });
});

describe("checkReport", () => {
  test("stale files fail the check, with the command that fixes them and where to diff", () => {
    const report = checkReport(
      [
        { file: "docs/diagrams/estate.dot", severity: "stale", problem: "differs" },
        { file: "docs/images/x.svg", severity: "unverified", problem: "was rendered elsewhere" },
      ],
      "/tmp/regen",
    );
    expect(report.ok).toBe(false);
    expect(report.text).toContain("STALE: docs/diagrams/estate.dot differs");
    expect(report.text).toContain("note: docs/images/x.svg was rendered elsewhere");
    expect(report.text).toContain("npm run diagrams");
    expect(report.text).toContain("diff -u docs/diagrams/estate.dot /tmp/regen/docs/diagrams/estate.dot");
  });

  test("only notes: the check passes", () => {
    const report = checkReport(
      [{ file: "docs/images/x.svg", severity: "unverified", problem: "n/a" }],
      "/tmp/r",
    );
    expect(report.ok).toBe(true);
  });
});

test("a diagram's files: source in docs/diagrams, picture in docs/images", () => {
  expect(diagramFiles("estate")).toEqual({ dot: "docs/diagrams/estate.dot", svg: "docs/images/estate.svg" });
});
