/**
 * `--check`: are the committed diagrams current? The `.dot` sources are deterministic, so they are
 * compared with freshly generated ones; each committed `.svg` must be what `dot -Tsvg` makes of the
 * committed `.dot` (checked when this machine's Graphviz is the one that rendered it). Pure.
 */

/** Where a diagram's files live, relative to the repository root. */
export const DOT_DIR = "docs/diagrams";
export const SVG_DIR = "docs/images";

/** The source and picture paths of diagram `name`. */
export function diagramFiles(name: string): { dot: string; svg: string } {
  return { dot: `${DOT_DIR}/${name}.dot`, svg: `${SVG_DIR}/${name}.svg` };
}

/** Something wrong with a committed file. */
export interface Finding {
  readonly file: string;
  /** `stale` fails the check; `unverified` is reported only (another Graphviz rendered the picture). */
  readonly severity: "stale" | "unverified";
  readonly problem: string;
}

/** The committed `.dot` of each generated one: missing or different is stale. */
export function dotFindings(
  generated: ReadonlyMap<string, string>,
  committed: (file: string) => string | undefined,
): Finding[] {
  return [...generated].flatMap(([file, text]): Finding[] => {
    const current = committed(file);
    if (current === undefined) return [{ file, severity: "stale", problem: "is missing" }];
    if (current !== text)
      return [
        { file, severity: "stale", problem: "differs from what the code and the engine's preview give now" },
      ];
    return [];
  });
}

/** What is known about one committed picture. */
export interface SvgEvidence {
  readonly file: string;
  /** The committed `.svg`, undefined when missing. */
  readonly committed: string | undefined;
  /** The Graphviz version the committed `.svg` names, if any. */
  readonly renderedBy: string | undefined;
  /** This machine's Graphviz version. */
  readonly localVersion: string;
  /** `dot -Tsvg` of the committed `.dot` on this machine (undefined when that `.dot` is missing). */
  readonly rerendered: string | undefined;
}

/** Whether a committed picture was rendered from the committed source. */
export function svgFinding(evidence: SvgEvidence): Finding | undefined {
  const { file, committed, renderedBy, localVersion, rerendered } = evidence;
  if (committed === undefined) return { file, severity: "stale", problem: "is missing" };
  if (rerendered === undefined) return undefined; // its .dot is missing: reported for the .dot
  if (renderedBy !== localVersion) {
    return {
      file,
      severity: "unverified",
      problem: `was rendered by Graphviz ${renderedBy ?? "(unknown)"}, this machine has ${localVersion}: not compared`,
    };
  }
  if (committed !== rerendered)
    return { file, severity: "stale", problem: "is not what `dot -Tsvg` renders from the committed .dot" };
  return undefined;
}

/** The check's verdict and its report (one line per finding, then how to fix stale files). */
export function checkReport(
  findings: readonly Finding[],
  regeneratedDir: string,
): { ok: boolean; text: string } {
  const stale = findings.filter((f) => f.severity === "stale");
  const lines = findings.map((f) => `${f.severity === "stale" ? "STALE" : "note"}: ${f.file} ${f.problem}`);
  if (stale.length === 0) return { ok: true, text: [...lines, "diagrams are current"].join("\n") };
  return {
    ok: false,
    text: [
      ...lines,
      `${stale.length} diagram file(s) are stale: run \`npm run diagrams\` and commit docs/diagrams/ and docs/images/.`,
      `The regenerated files are in ${regeneratedDir} (e.g. diff -u ${stale[0].file} ${regeneratedDir}/${stale[0].file}).`,
    ].join("\n"),
  };
}
