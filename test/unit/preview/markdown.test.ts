import * as fs from "fs";
import * as path from "path";
import { parsePreviewDigest } from "../../../lib/preview/digest";
import {
  SUMMARY_MARKER,
  renderSummaryMarkdown,
  statefulWarning,
  totalsLine,
} from "../../../lib/preview/markdown";
import { summarizePreview } from "../../../lib/preview/summary";

const summary = summarizePreview(
  parsePreviewDigest(fs.readFileSync(path.join(__dirname, "fixtures", "rotation-and-image.json"), "utf8")),
);
const markdown = renderSummaryMarkdown(summary);
const lines = markdown.split("\n");

/** Lines of the section under `heading`, up to the next level-4 heading. */
function section(heading: string): string[] {
  const start = lines.indexOf(heading);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.startsWith("#### "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

describe("renderSummaryMarkdown", () => {
  test("starts with the marker the PR workflow updates its comment by, then a title naming the stack", () => {
    expect(lines[0]).toBe(SUMMARY_MARKER);
    expect(lines[1]).toBe("### Pulumi preview — stack `ci`");
  });

  test("a warning right under the totals names every replaced or deleted stateful resource", () => {
    const warning = lines.slice(
      lines.indexOf(totalsLine(summary)) + 2,
      lines.indexOf(totalsLine(summary)) + 5,
    );
    // the fixture's leaves are replaced (not stateful); its CRD deletion takes every object of it along
    expect(warning).toEqual([
      "> [!WARNING]",
      "> **1 stateful resource replaced or deleted** — what they hold is lost or no longer trusted:",
      "> - `CustomResourceDefinition` **karmada-customresourcedefinition-widgets.example.io** (custom-resources): delete",
    ]);
    const withoutDeletes = {
      ...summary,
      components: summary.components.map((c) => ({
        ...c,
        changes: c.changes.filter((x) => x.kind !== "delete"),
      })),
    };
    expect(statefulWarning(withoutDeletes)).toEqual([]);
  });

  test("the totals line carries every count of the summary", () => {
    const t = summary.totals;
    expect(totalsLine(summary)).toBe(
      `**${t.create} to create · ${t.update} to update · ${t.replace} to replace · ${t.delete} to delete** · ` +
        `${t.other} other · ${summary.unchanged} unchanged`,
    );
    expect(lines).toContain(totalsLine(summary));
  });

  test("one table row per changed component with its counts", () => {
    for (const c of summary.components) {
      const label = c.urn ? `${c.label.split(" ")[0]} \`${c.name}\`` : c.label;
      const n = c.counts;
      expect(lines).toContain(
        `| ${label} | ${n.create} | ${n.update} | ${n.replace} | ${n.delete} | ${n.other} |`,
      );
    }
    expect(lines.filter((l) => l.startsWith("| ") && !l.startsWith("| Component"))).toHaveLength(
      summary.components.length,
    );
  });

  test("replaced resources are listed with the properties forcing them, or say that none was reported", () => {
    const cp = section("#### KarmadaControlPlane `karmada`");
    expect(cp).toContain("**Replaced (new resource created, old one deleted):**");
    expect(cp).toContain("- `CertRequest` **karmada-admin-csr** — replaced because of: `privateKeyPem`");
    expect(cp).toContain(
      "- `LocallySignedCert` **karmada-admin-cert** — replaced because of: `certRequestPem`",
    );
    expect(cp).toContain(
      "- `PrivateKey` **karmada-admin-key** — replaced because of: _no property (a replacement trigger, or `--replace`)_",
    );
    expect(cp).toContain(
      "- `Deployment` **karmada-deployment-karmada-system-karmada-scheduler** — changes: `spec.template.spec.containers[0].image`",
    );
    expect(cp).toContain("- `kubernetes` **karmada-karmada** — changes: `kubeconfig`");
    expect(cp).toContain("- `Namespace` **karmada-search-existing-namespace** (import)");
  });

  test("sections appear in the order replaced, deleted, created, updated, other", () => {
    const order = section("#### KarmadaControlPlane `karmada`").filter((l) => l.startsWith("**"));
    expect(order).toEqual([
      "**Replaced (new resource created, old one deleted):**",
      "**Deleted:**",
      "**Created:**",
      "**Updated in place:**",
      "**Other operations:**",
    ]);
  });

  test("errors and warnings are listed after the components, errors first", () => {
    const errors = lines.indexOf("**Errors (1):**");
    const warnings = lines.indexOf("**Warnings (1):**");
    expect(errors).toBeGreaterThan(lines.indexOf("#### Stack resources"));
    expect(warnings).toBeGreaterThan(errors);
    expect(lines[errors + 2]).toBe("- error: preview failed for one resource");
  });

  test("a preview without changes says so and has no table", () => {
    const empty = renderSummaryMarkdown(summarizePreview({ changeSummary: { same: 12 } }), {
      title: "Nightly",
    });
    expect(empty).toBe(
      `${SUMMARY_MARKER}\n### Nightly\n\n**0 to create · 0 to update · 0 to replace · 0 to delete** · 12 unchanged\n\nNo changes.\n`,
    );
  });

  test("long lists are cut with a count of the rest", () => {
    const steps = Array.from({ length: 5 }, (_, i) => ({
      op: "create",
      urn: `urn:pulumi:s::p::x:index:R::r${i}`,
    }));
    const text = renderSummaryMarkdown(summarizePreview({ steps }), { maxItems: 2 });
    expect(text).toContain("- `R` **r1**\n- … and 3 more");
    expect(text).not.toContain("**r2**");
  });

  test("pipes in names cannot break the table; backticks cannot break code spans", () => {
    const urn = "urn:pulumi:s::p::k:index:Weird::a|b`c";
    const text = renderSummaryMarkdown(
      summarizePreview({ steps: [{ op: "create", urn, newState: { custom: false } }] }),
    );
    expect(text).toContain("| Weird `a\\|b'c` | 1 | 0 | 0 | 0 | 0 |");
  });
});
