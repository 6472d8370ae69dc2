import { CORE_SCHEMA, loadAll, YAMLException } from "js-yaml";

/** Where a YAML text is not valid. */
export interface YamlSyntaxProblem {
  readonly reason: string;
  /** 1-based line of the text. */
  readonly line: number;
  /** 0-based index of the document holding that line, empty documents counted. */
  readonly document: number;
}

/** The document a line belongs to: each `---` starts one, so does content before the first `---`. */
function documentOf(text: string, line: number): number {
  let index = -1;
  let open = false;
  for (const l of text.split("\n").slice(0, line - 1)) {
    if (/^---(\s|$)/.test(l)) {
      index++;
      open = true;
    } else if (!open && !/^\s*(#.*)?$/.test(l) && !l.startsWith("%")) {
      index++;
      open = true;
    }
  }
  return Math.max(index, 0);
}

/**
 * The documents of a multi-document YAML text, empty ones dropped. YAML 1.2 core schema, the same
 * values as the `yaml` package gives (no timestamps turned into dates, no `<<` merge keys). js-yaml
 * because the CRD bundle (≈ 0.7 MB) is parsed on every preview and `up`: ≈ 0.1 s against ≈ 0.5 s.
 * `invalid` builds the error thrown for a syntax error.
 */
export function parseYamlDocuments(text: string, invalid: (problem: YamlSyntaxProblem) => Error): unknown[] {
  try {
    return loadAll(text, undefined, { schema: CORE_SCHEMA }).filter(
      (doc) => doc !== null && doc !== undefined,
    );
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    const line = err.mark.line + 1;
    throw invalid({ reason: err.reason, line, document: documentOf(text, line) });
  }
}
