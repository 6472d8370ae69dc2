/**
 * Descriptions from doc comments: the JSDoc text of a declaration, with `{@link X}` as `` `X` `` and its
 * `@default` appended as "Default: …".
 *
 * The schema's own `default` field is never set: every SDK fills such a default in before the component
 * sees the arguments, and the components tell "not given" from "given": hosts mode refuses
 * `apiServer.serviceType` and `components.*.imagePullPolicy` when set at all, and `protect` left unset
 * defers to the resource option. The default stays documentation, applied by the component.
 */
import * as ts from "typescript";

/** What a declaration's doc comment says. */
export interface DocComment {
  /** The text before the tags; empty when there is none. */
  readonly summary: string;
  /** The `@default` tag's text (typedoc's leading `- ` dropped), if any. */
  readonly defaultText?: string;
}

/** Doc comment text, `{@link Name}` / `{@link Name text}` rendered as Markdown code or the link text. */
function render(parts: readonly ts.SymbolDisplayPart[] | undefined): string {
  let text = "";
  for (const part of parts ?? []) {
    if (part.kind === "link") continue; // the `{@link` and `}` delimiters
    if (part.kind === "linkName") text += `\`${part.text}\``;
    else text += part.text;
  }
  // a JSDoc comment cannot contain `*/`; sources write `*\/` (cron schedules)
  return text.replace(/\*\\\//g, "*/").trim();
}

/** The doc comment of `symbol` (a property, interface, alias or class). */
export function docComment(symbol: ts.Symbol, checker: ts.TypeChecker): DocComment {
  const summary = render(symbol.getDocumentationComment(checker));
  const tag = symbol.getJsDocTags(checker).find((t) => t.name === "default");
  if (!tag) return { summary };
  const defaultText = render(tag.text).replace(/^-\s*/, "");
  return { summary, defaultText: defaultText || undefined };
}

/** A description from its paragraphs: summary, notes, then "Default: …"; undefined when all are empty. */
export function describe(
  summary: string,
  notes: readonly string[],
  defaultText?: string,
): string | undefined {
  const paragraphs = [summary, ...notes, defaultText === undefined ? "" : `Default: ${defaultText}`];
  const text = paragraphs.filter((p) => p.length > 0).join("\n\n");
  return text.length > 0 ? text : undefined;
}
