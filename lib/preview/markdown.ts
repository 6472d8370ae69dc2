import { statefulKind } from "./stateful";
import { ChangeKind, ComponentChanges, PreviewSummary, ResourceChange } from "./summary";
import { shortTypeName } from "./urn";

/** HTML comment the PR workflow looks for to update its comment instead of adding one per push. */
export const SUMMARY_MARKER = "<!-- pulumi-karmada:preview-summary -->";

/** Options of {@link renderSummaryMarkdown}. */
export interface MarkdownOptions {
  /** Heading text. @default "Pulumi preview" (plus the stack name when known) */
  readonly title?: string;
  /** Resources listed per kind and component before "… and N more". @default 30 */
  readonly maxItems?: number;
  /** Diagnostics (errors, then warnings) listed before "… and N more". @default 10 */
  readonly maxDiagnostics?: number;
}

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

const SECTIONS: readonly { kind: Exclude<ChangeKind, "same">; heading: string; reasonLabel: string }[] = [
  {
    kind: "replace",
    heading: "Replaced (new resource created, old one deleted)",
    reasonLabel: "replaced because of",
  },
  { kind: "delete", heading: "Deleted", reasonLabel: "" },
  { kind: "create", heading: "Created", reasonLabel: "" },
  { kind: "update", heading: "Updated in place", reasonLabel: "changes" },
  { kind: "other", heading: "Other operations", reasonLabel: "" },
];

function changeLine(change: ResourceChange, reasonLabel: string): string {
  const what = `${code(shortTypeName(change.type))} **${change.name}**`;
  const ops = change.kind === "other" ? ` (${change.ops.join(", ")})` : "";
  if (!reasonLabel) return `- ${what}${ops}`;
  const reasons =
    change.reasons.length > 0
      ? change.reasons.map(code).join(", ")
      : change.kind === "replace"
        ? "_no property (a replacement trigger, or `--replace`)_"
        : "_no property reported_";
  return `- ${what}${ops} — ${reasonLabel}: ${reasons}`;
}

function limited<T>(items: readonly T[], max: number, line: (item: T) => string): string[] {
  const lines = items.slice(0, max).map(line);
  if (items.length > max) lines.push(`- … and ${items.length - max} more`);
  return lines;
}

/** `KarmadaControlPlane \`karmada\``, or the label of the stack's own group. */
function heading(component: ComponentChanges): string {
  return component.urn ? `${shortTypeName(component.type)} ${code(component.name)}` : component.label;
}

function componentSection(component: ComponentChanges, maxItems: number): string[] {
  const lines = [`#### ${heading(component)}`, ""];
  for (const section of SECTIONS) {
    const changes = component.changes.filter((c) => c.kind === section.kind);
    if (changes.length === 0) continue;
    lines.push(
      `**${section.heading}:**`,
      "",
      ...limited(changes, maxItems, (c) => changeLine(c, section.reasonLabel)),
      "",
    );
  }
  return lines;
}

/** One line of totals, e.g. `**2 to create · 1 to update · 0 to replace · 0 to delete** · 40 unchanged`. */
export function totalsLine(summary: PreviewSummary): string {
  const t = summary.totals;
  const other = t.other > 0 ? ` · ${t.other} other` : "";
  return (
    `**${t.create} to create · ${t.update} to update · ${t.replace} to replace · ${t.delete} to delete**` +
    `${other} · ${summary.unchanged} unchanged`
  );
}

/**
 * The warning a reviewer must not miss: replaced or deleted resources that hold state (CAs, the
 * service-account key, etcd members and data, namespaces, member registrations; lib/preview/stateful.ts).
 * Empty when there are none.
 */
export function statefulWarning(summary: PreviewSummary): string[] {
  const hits = summary.components.flatMap((c) =>
    c.changes.flatMap((change) => {
      const kind =
        change.kind === "replace" || change.kind === "delete" ? statefulKind(change.urn) : undefined;
      return kind ? [{ change, kind }] : [];
    }),
  );
  if (hits.length === 0) return [];
  return [
    `> [!WARNING]`,
    `> **${hits.length} stateful resource${hits.length === 1 ? "" : "s"} replaced or deleted** — what they hold is lost or no longer trusted:`,
    ...hits.map(
      ({ change, kind }) =>
        `> - ${code(shortTypeName(change.type))} **${change.name}** (${kind}): ${change.kind}`,
    ),
    "",
  ];
}

/**
 * Renders a summary as GitHub-flavoured Markdown: totals, a warning naming replaced or deleted stateful
 * resources, a per-component table, then per component the
 * replaced (with the properties forcing it), deleted, created and updated resources, then diagnostics.
 * Starts with {@link SUMMARY_MARKER}.
 */
export function renderSummaryMarkdown(summary: PreviewSummary, options: MarkdownOptions = {}): string {
  const maxItems = options.maxItems ?? 30;
  const maxDiagnostics = options.maxDiagnostics ?? 10;
  const title = options.title ?? `Pulumi preview${summary.stack ? ` — stack ${code(summary.stack)}` : ""}`;
  const lines = [SUMMARY_MARKER, `### ${title}`, "", totalsLine(summary), "", ...statefulWarning(summary)];
  if (summary.components.length === 0) {
    lines.push("No changes.", "");
  } else {
    lines.push("| Component | Create | Update | Replace | Delete | Other |", "|---|--:|--:|--:|--:|--:|");
    for (const c of summary.components) {
      const n = c.counts;
      lines.push(
        `| ${cell(heading(c))} | ${n.create} | ${n.update} | ${n.replace} | ${n.delete} | ${n.other} |`,
      );
    }
    lines.push("");
    for (const component of summary.components) lines.push(...componentSection(component, maxItems));
  }
  if (summary.errors.length > 0) {
    lines.push(
      `**Errors (${summary.errors.length}):**`,
      "",
      ...limited(summary.errors, maxDiagnostics, (m) => `- ${cell(m)}`),
      "",
    );
  }
  if (summary.warnings.length > 0) {
    lines.push(
      `**Warnings (${summary.warnings.length}):**`,
      "",
      ...limited(summary.warnings, maxDiagnostics, (m) => `- ${cell(m)}`),
      "",
    );
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
