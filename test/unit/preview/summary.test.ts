import fc from "fast-check";
import * as fs from "fs";
import * as path from "path";
import { PreviewDigest, PreviewStep, parsePreviewDigest } from "../../../lib/preview/digest";
import { changeKindOf, summarizePreview } from "../../../lib/preview/summary";

const fixture = (): PreviewDigest =>
  parsePreviewDigest(fs.readFileSync(path.join(__dirname, "fixtures", "rotation-and-image.json"), "utf8"));
const CP = "urn:pulumi:ci::karmada-estate::karmada:index:KarmadaControlPlane::karmada";

describe("changeKindOf", () => {
  test.each([
    ["create", "create"],
    ["update", "update"],
    ["delete", "delete"],
    ["replace", "replace"],
    ["create-replacement", "replace"],
    ["delete-replaced", "replace"],
    ["same", "same"],
    ["read", "same"],
    ["refresh", "other"],
    ["import", "other"],
  ])("%s → %s", (op, kind) => expect(changeKindOf(op)).toBe(kind));
});

describe("summarizePreview on a recorded-shape preview (with --show-sames)", () => {
  const summary = summarizePreview(fixture());

  test("groups every change under its top-level component; unchanged components are not listed", () => {
    expect(summary.stack).toBe("ci");
    expect(summary.components.map((c) => c.label)).toEqual([
      "KarmadaControlPlane karmada",
      "Stack resources",
    ]);
    expect(summary.components[0].urn).toBe(CP);
    expect(summary.components[1].urn).toBeUndefined();
  });

  test("a resource under a nested component (Addon inside the control plane) counts for the control plane", () => {
    const names = summary.components[0].changes.map((c) => c.name);
    expect(names).toContain("karmada-search-configmap-karmada-system-search|config");
    expect(names).toContain("karmada-search-existing-namespace");
  });

  test("counts per component and in total; unchanged comes from changeSummary", () => {
    expect(summary.components[0].counts).toEqual({ create: 1, update: 3, replace: 3, delete: 1, other: 1 });
    expect(summary.components[1].counts).toEqual({ create: 1, update: 0, replace: 0, delete: 0, other: 0 });
    expect(summary.totals).toEqual({ create: 2, update: 3, replace: 3, delete: 1, other: 1 });
    expect(summary.unchanged).toBe(6);
  });

  test("replacements come first with the properties forcing them; updates carry their changed properties", () => {
    const changes = summary.components[0].changes;
    const replaced = changes.slice(0, 3);
    expect(replaced.every((c) => c.kind === "replace")).toBe(true);
    expect(replaced.map((c) => c.urn)).toEqual(replaced.map((c) => c.urn).sort());
    expect(Object.fromEntries(replaced.map((c) => [c.name, c.reasons]))).toEqual({
      // no replaceReasons: the detailed diff's replace-forcing paths (not the plain update of validityEndTime)
      "karmada-admin-cert": ["certRequestPem"],
      "karmada-admin-csr": ["privateKeyPem"],
      "karmada-admin-key": [],
    });
    expect(changes.slice(3).map((c) => c.kind)).toEqual([
      "delete",
      "create",
      "update",
      "update",
      "update",
      "other",
    ]);
    const provider = changes.find((c) => c.type === "pulumi:providers:kubernetes")!;
    expect([provider.kind, provider.reasons]).toEqual(["update", ["kubeconfig"]]);
    expect(changes.find((c) => c.kind === "other")!.ops).toEqual(["import"]);
    // the kubernetes provider reports no diffReasons: the detailed diff's property paths stand in
    const deployment = changes.find((c) => c.type === "kubernetes:apps/v1:Deployment")!;
    expect(deployment.reasons).toEqual(["spec.template.spec.containers[0].image"]);
  });

  test("a read (a `.get` of an object the program does not manage) is no change: not listed, counted unchanged", () => {
    const digest = fixture();
    const importStep = digest.steps!.find((s) => s.op === "import")!;
    const withRead = summarizePreview({
      ...digest,
      steps: digest.steps!.map((s) => (s === importStep ? { ...s, op: "read" } : s)),
      changeSummary: { ...digest.changeSummary!, import: 0, read: 1 },
    });
    const listed = withRead.components.flatMap((c) => c.changes.map((change) => change.urn));
    expect(listed).not.toContain(importStep.urn);
    expect(withRead.totals.other).toBe(0);
    expect(withRead.unchanged).toBe(summary.unchanged + 1);
  });

  test("errors and warnings are collected, info messages are not", () => {
    expect(summary.errors).toEqual(["error: preview failed for one resource"]);
    expect(summary.warnings).toHaveLength(1);
  });

  test("the root stack step is never counted", () => {
    const all = summary.components.flatMap((c) => c.changes);
    expect(all.some((c) => c.type === "pulumi:pulumi:Stack")).toBe(false);
  });
});

describe("summarizePreview without --show-sames", () => {
  const digest = fixture();
  const changesOnly: PreviewDigest = {
    ...digest,
    changeSummary: undefined,
    steps: digest.steps!.filter((s) => s.op !== "same" || s.urn.includes("pulumi:pulumi:Stack")),
  };
  const summary = summarizePreview(changesOnly);

  test("an unchanged intermediate component is missing, so its changes group under it (outermost known ancestor)", () => {
    expect(summary.components.map((c) => c.label)).toEqual([
      "KarmadaControlPlane karmada",
      "Addon karmada-search",
      "Stack resources",
    ]);
    expect(summary.components[1].counts).toEqual({ create: 1, update: 0, replace: 0, delete: 0, other: 1 });
  });

  test("totals do not depend on the grouping; unchanged is counted from steps (none here)", () => {
    expect(summary.totals).toEqual(summarizePreview(digest).totals);
    expect(summary.unchanged).toBe(0);
  });
});

/** A random resource tree: node i hangs under an earlier component, or directly under the stack. */
const treeArb = fc.array(
  fc.record({
    parentPick: fc.nat(),
    component: fc.boolean(),
    op: fc.constantFrom("same", "create", "update", "delete", "replace", "read"),
  }),
  { maxLength: 40 },
);

describe("summarizePreview properties", () => {
  test("with all steps present, every changed resource lands once, in the group of its top-level ancestor", () => {
    fc.assert(
      fc.property(treeArb, (nodes) => {
        const prefix = "urn:pulumi:s::p::";
        const stack = `${prefix}pulumi:pulumi:Stack::p-s`;
        const parent: number[] = [];
        const chain: string[][] = [];
        const urns: string[] = [];
        const steps: PreviewStep[] = [{ op: "same", urn: stack }];
        nodes.forEach((node, i) => {
          const candidate = (node.parentPick % (i + 1)) - 1;
          parent[i] = candidate >= 0 && nodes[candidate].component ? candidate : -1;
          const type = node.component ? `k:index:C${i % 3}` : `x:index:R${i % 4}`;
          chain[i] = parent[i] >= 0 ? [...chain[parent[i]], type] : [type];
          urns[i] = `${prefix}${chain[i].join("$")}::n${i}`;
          const state = {
            urn: urns[i],
            custom: !node.component,
            parent: parent[i] >= 0 ? urns[parent[i]] : stack,
          };
          steps.push({
            op: node.component ? "same" : node.op,
            urn: urns[i],
            oldState: state,
            newState: state,
          });
        });
        const top = (i: number): string | undefined => {
          let j = i;
          while (parent[j] >= 0) j = parent[j];
          return j !== i || nodes[i].component ? urns[j] : undefined;
        };
        const summary = summarizePreview({ steps });
        const expected = new Map<string | undefined, string[]>();
        nodes.forEach((node, i) => {
          if (node.component || changeKindOf(node.op) === "same") return;
          expected.set(top(i), [...(expected.get(top(i)) ?? []), urns[i]].sort());
        });
        const actual = new Map(summary.components.map((c) => [c.urn, c.changes.map((x) => x.urn).sort()]));
        expect(actual).toEqual(expected);
        const total = Object.values(summary.totals).reduce((a, b) => a + b, 0);
        expect(total).toBe([...expected.values()].flat().length);
        for (const c of summary.components) {
          expect(Object.values(c.counts).reduce((a, b) => a + b, 0)).toBe(c.changes.length);
        }
      }),
      { numRuns: 200 },
    );
  });

  test("a replacement split into its create-replacement / delete-replaced halves counts once, as a replace", () => {
    const urn = "urn:pulumi:s::p::x:index:R::r";
    const steps = ["create-replacement", "replace", "delete-replaced"].map((op) => ({
      op,
      urn,
      replaceReasons: ["a"],
    }));
    const summary = summarizePreview({ steps });
    expect(summary.totals).toEqual({ create: 0, update: 0, replace: 1, delete: 0, other: 0 });
    expect(summary.components[0].changes[0].ops).toEqual([
      "create-replacement",
      "replace",
      "delete-replaced",
    ]);
  });
});
