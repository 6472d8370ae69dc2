/**
 * Writing Graphviz DOT text: quoting, attribute lists, and the shared look of every diagram. Pure string
 * functions, so a diagram's `.dot` source is a deterministic function of its model.
 */

/** Attribute values of a node, edge, graph or cluster; `undefined` values are left out. */
export type DotAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A DOT identifier or string value, always double-quoted (newlines become centred line breaks). */
export function dotQuote(value: string | number | boolean): string {
  const text = String(value).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
  return `"${text}"`;
}

/** `[a="1", b="x"]` in key order, or "" when nothing is set. */
export function dotAttributes(attributes: DotAttributes): string {
  const set = Object.entries(attributes).filter(([, v]) => v !== undefined) as [string, string][];
  if (set.length === 0) return "";
  return ` [${set.map(([k, v]) => `${k}=${dotQuote(v)}`).join(", ")}]`;
}

/** One node statement. */
export function dotNode(id: string, attributes: DotAttributes = {}): string {
  return `${dotQuote(id)}${dotAttributes(attributes)};`;
}

/** One edge statement `from -> to`. */
export function dotEdge(from: string, to: string, attributes: DotAttributes = {}): string {
  return `${dotQuote(from)} -> ${dotQuote(to)}${dotAttributes(attributes)};`;
}

/** A `subgraph cluster_<id>` block around `body` (statement lines), indented. */
export function dotCluster(id: string, attributes: DotAttributes, body: readonly string[]): string[] {
  const settings = Object.entries(attributes)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `  ${k}=${dotQuote(v as string)};`);
  return [`subgraph ${dotQuote(`cluster_${id}`)} {`, ...settings, ...indent(body), "}"];
}

/** Lines indented by two spaces. */
export function indent(lines: readonly string[]): string[] {
  return lines.map((line) => (line === "" ? line : `  ${line}`));
}

/** Where a diagram's source comes from, for the header comment of its `.dot` file. */
export interface DotDocument {
  /** The graph's name (also the file name). */
  readonly name: string;
  /** What the diagram shows and how it was made (comment lines at the top of the file). */
  readonly comment: readonly string[];
  /** Graph attributes (`rankdir`, `label` …), merged over {@link BASE_GRAPH}. */
  readonly graph: DotAttributes;
  /** The statements: nodes, edges, clusters. */
  readonly body: readonly string[];
}

/** The look every diagram shares. */
const BASE_GRAPH: DotAttributes = {
  fontname: "Helvetica",
  fontsize: 14,
  labelloc: "t",
};
const BASE_NODE: DotAttributes = { fontname: "Helvetica", fontsize: 11, shape: "box", style: "rounded" };
const BASE_EDGE: DotAttributes = { fontname: "Helvetica", fontsize: 9, color: "#555555", arrowsize: 0.7 };

/** The whole `.dot` text of `doc`: header comment, shared defaults, body. Ends with a newline. */
export function renderDot(doc: DotDocument): string {
  const graph = { ...BASE_GRAPH, ...doc.graph };
  return [
    ...doc.comment.map((line) => `// ${line}`.trimEnd()),
    `digraph ${dotQuote(doc.name)} {`,
    ...indent([
      ...Object.entries(graph)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${dotQuote(v as string)};`),
      `node${dotAttributes(BASE_NODE)};`,
      `edge${dotAttributes(BASE_EDGE)};`,
      ...doc.body,
    ]),
    "}",
    "",
  ].join("\n");
}

/** Edge width for `count` underlying links: 1 for one, growing slowly (log2) so heavy edges stand out. */
export function edgeWidth(count: number): number {
  return Math.round((1 + Math.log2(Math.max(1, count)) / 2) * 10) / 10;
}

/** Compares strings by code unit (locale-independent, so every machine sorts alike). */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `1 file`, `2 files`: a count with its noun. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
