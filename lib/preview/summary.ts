import { PreviewDigest, PreviewStep } from "./digest";
import { ParsedUrn, STACK_TYPE, parseUrn, shortTypeName } from "./urn";

/** What happens to one resource, reduced from its step(s). */
export type ChangeKind = "create" | "update" | "replace" | "delete" | "other" | "same";

/** Count of changed resources per kind. */
type ChangeCounts = Record<Exclude<ChangeKind, "same">, number>;

/** One changed resource. */
export interface ResourceChange {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
  readonly kind: Exclude<ChangeKind, "same">;
  /** The engine's operation(s), e.g. `replace`, or `read`. */
  readonly ops: readonly string[];
  /** For replacements: the properties forcing it; for updates: the changed properties. */
  readonly reasons: readonly string[];
}

/** The changes under one top-level component (or the resources directly in the stack). */
export interface ComponentChanges {
  /** URN of the top-level component; undefined for resources directly in the stack. */
  readonly urn?: string;
  /** Its type token (e.g. `karmada:index:KarmadaControlPlane`), or the stack type. */
  readonly type: string;
  /** Its name, or `(stack)`. */
  readonly name: string;
  /** e.g. `KarmadaControlPlane karmada`. */
  readonly label: string;
  readonly counts: ChangeCounts;
  /** Changed resources, replacements first, then deletes, creates, updates, others; by URN within each. */
  readonly changes: readonly ResourceChange[];
}

/** A preview reduced to what a reviewer needs. */
export interface PreviewSummary {
  /** Stack name, from the URNs. */
  readonly stack?: string;
  readonly totals: ChangeCounts;
  /** Unchanged resources (from `changeSummary.same`, else counted). */
  readonly unchanged: number;
  /** Groups with at least one change, in URN order; the stack's own resources last. */
  readonly components: readonly ComponentChanges[];
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

const KIND_OF_OP: Readonly<Record<string, ChangeKind>> = {
  same: "same",
  // a `.get` of an object the program does not manage: read on every run, it changes nothing
  read: "same",
  create: "create",
  update: "update",
  delete: "delete",
  replace: "replace",
  "create-replacement": "replace",
  "delete-replaced": "replace",
  "discard-replaced": "replace",
};

/** Strongest first: a resource with several steps is reported by the strongest. */
const KIND_ORDER: readonly ChangeKind[] = ["replace", "delete", "create", "update", "other", "same"];

const emptyCounts = (): ChangeCounts => ({ create: 0, update: 0, replace: 0, delete: 0, other: 0 });

/** The change kind of one engine operation (reads are `same`; refreshes, imports and discards `other`). */
export function changeKindOf(op: string): ChangeKind {
  return KIND_OF_OP[op] ?? "other";
}

interface Resource {
  readonly urn: string;
  readonly parsed: ParsedUrn;
  readonly steps: PreviewStep[];
  custom?: boolean;
}

/**
 * The top-level component a resource belongs to: the ancestor whose parent is the root stack. Parents are
 * taken from step states; a parent URN not among the steps is still usable when its type chain shows it
 * sits directly under the stack. When the chain is cut higher up (a saved preview without `--show-sames`
 * lacks unchanged intermediate components), the outermost ancestor known is used. Undefined for resources
 * directly in the stack.
 */
function topLevelAncestor(urn: string, parentOf: ReadonlyMap<string, string>): string | undefined {
  let current = urn;
  for (let depth = 0; depth < 100; depth++) {
    const parent = parentOf.get(current);
    if (parent === undefined || parseUrn(parent).type === STACK_TYPE) {
      return current === urn ? undefined : current;
    }
    if (parseUrn(parent).typeChain.length === 1) return parent;
    current = parent;
  }
  return undefined;
}

/**
 * Why a resource changes: the engine's replace/diff reasons (top-level properties); when a provider
 * reports none (the kubernetes provider does not), the property paths of its detailed diff — for a
 * replacement only those marked as forcing it (`*-replace`).
 */
function reasonsOf(steps: readonly PreviewStep[], kind: ChangeKind): string[] {
  const key = kind === "replace" ? "replaceReasons" : "diffReasons";
  let reasons = steps.flatMap((s) => s[key] ?? []);
  if (reasons.length === 0) {
    reasons = steps.flatMap((s) =>
      Object.entries(s.detailedDiff ?? {})
        .filter(([, diff]) => kind !== "replace" || diff.kind.endsWith("-replace"))
        .map(([property]) => property),
    );
  }
  return [...new Set(reasons)].sort();
}

/** Groups a preview's changes by top-level component and counts them. Pure; the digest is not modified. */
export function summarizePreview(digest: PreviewDigest): PreviewSummary {
  const resources = new Map<string, Resource>();
  const parentOf = new Map<string, string>();
  for (const step of digest.steps ?? []) {
    const resource = resources.get(step.urn) ?? { urn: step.urn, parsed: parseUrn(step.urn), steps: [] };
    resource.steps.push(step);
    resource.custom ??= step.newState?.custom ?? step.oldState?.custom;
    resources.set(step.urn, resource);
    const parent = step.newState?.parent ?? step.oldState?.parent;
    if (parent) parentOf.set(step.urn, parent);
  }

  const groups = new Map<string, { urn?: string; changes: ResourceChange[] }>();
  const STACK_KEY = "";
  let sameSteps = 0;
  let stack: string | undefined;
  for (const resource of resources.values()) {
    stack ??= resource.parsed.stack;
    if (resource.parsed.type === STACK_TYPE) continue;
    const kinds = resource.steps.map((s) => changeKindOf(s.op));
    const kind = KIND_ORDER.find((k) => kinds.includes(k))!;
    if (kind === "same") {
      sameSteps++;
      continue;
    }
    // a component is the top of its own group; a custom resource without component ancestors is the stack's
    const top =
      topLevelAncestor(resource.urn, parentOf) ?? (resource.custom === false ? resource.urn : undefined);
    const key = top ?? STACK_KEY;
    const group = groups.get(key) ?? { urn: top, changes: [] };
    group.changes.push({
      urn: resource.urn,
      type: resource.parsed.type,
      name: resource.parsed.name,
      kind,
      ops: [...new Set(resource.steps.map((s) => s.op))],
      reasons: reasonsOf(resource.steps, kind),
    });
    groups.set(key, group);
  }

  const totals = emptyCounts();
  const components: ComponentChanges[] = [...groups.entries()]
    .sort(([a], [b]) => (a === STACK_KEY ? 1 : b === STACK_KEY ? -1 : a.localeCompare(b)))
    .map(([, group]) => {
      const counts = emptyCounts();
      for (const change of group.changes) {
        counts[change.kind]++;
        totals[change.kind]++;
      }
      const changes = [...group.changes].sort(
        (a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.urn.localeCompare(b.urn),
      );
      if (!group.urn) return { type: STACK_TYPE, name: "(stack)", label: "Stack resources", counts, changes };
      const top = parseUrn(group.urn);
      return {
        urn: group.urn,
        type: top.type,
        name: top.name,
        label: `${shortTypeName(top.type)} ${top.name}`,
        counts,
        changes,
      };
    });

  const messages = (severity: string) =>
    (digest.diagnostics ?? []).filter((d) => d.severity === severity).map((d) => (d.message ?? "").trim());
  return {
    stack,
    totals,
    unchanged:
      digest.changeSummary === undefined
        ? sameSteps
        : (digest.changeSummary.same ?? 0) + (digest.changeSummary.read ?? 0),
    components,
    errors: messages("error"),
    warnings: messages("warning"),
  };
}
