/**
 * The estate's dependency graph as the engine reports it: `pulumi preview --json` lists every resource of
 * the program with its parent, its dependencies (explicit `dependsOn` and those of its inputs) and its
 * provider. This module reads that graph and aggregates it into groups a reader can take in at once —
 * per top-level component: its PKI, its commands per machine, its Kubernetes objects by kind and by the
 * provider that applies them (which says which cluster they live in) — with the dependencies between
 * groups counted. Pure.
 */
import { PreviewDigest, PreviewStep } from "../../lib/preview/digest";
import { STACK_TYPE, parseUrn, shortTypeName } from "../../lib/preview/urn";
import { ConfigError, show } from "../../lib/validation/errors";
import { byText } from "./dot";

/** One resource of the previewed program. */
export interface EstateResource {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
  /** false for component resources. */
  readonly custom: boolean;
  readonly parent?: string;
  /** URNs of the resources it depends on, sorted. */
  readonly dependencies: readonly string[];
  /** URN of its provider (the reference without the provider's id). */
  readonly provider?: string;
}

/** The previewed program: its resources and the machines its settings name. */
export interface EstatePreview {
  readonly resources: readonly EstateResource[];
  /** Names of the machines (etcd hosts, control-plane machines) in the stack settings, sorted. */
  readonly machines: readonly string[];
}

/** The step fields this module reads beyond lib/preview's digest type. */
interface GraphState {
  readonly custom?: boolean;
  readonly parent?: string;
  readonly dependencies?: unknown;
  readonly provider?: unknown;
}

/** A provider reference `<provider urn>::<id>` → the provider's URN. */
export function providerUrn(reference: string): string {
  return reference.slice(0, reference.lastIndexOf("::"));
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
    throw new ConfigError(field, `${show(value)} is not a list of URNs`);
  return [...value].sort(byText);
}

/** The resource a step leaves behind (its `newState`), or undefined for a step that deletes. */
function resourceOf(step: PreviewStep, at: string): EstateResource | undefined {
  const state = step.newState as GraphState | undefined;
  if (!state) return undefined;
  const { type, name } = parseUrn(step.urn, `${at}.urn`);
  if (state.provider !== undefined && typeof state.provider !== "string")
    throw new ConfigError(`${at}.newState.provider`, `${show(state.provider)} is not a provider reference`);
  return {
    urn: step.urn,
    type,
    name,
    custom: state.custom !== false,
    parent: state.parent || undefined,
    dependencies: stringList(state.dependencies, `${at}.newState.dependencies`),
    provider: state.provider ? providerUrn(state.provider) : undefined,
  };
}

/** Where the stack settings list machines: config key → path to the list (entries carry a `name`). */
const MACHINE_LISTS: readonly { readonly key: string; readonly path: readonly string[] }[] = [
  { key: "karmada:etcd", path: ["hosts", "hosts"] },
  { key: "karmada:controlPlane", path: ["hosts", "machines"] },
];

/** The machine names of each list in the settings a preview ran with (config values are JSON text). */
function machineLists(
  config: Readonly<Record<string, string>>,
): { key: string; path: readonly string[]; names: string[] }[] {
  return MACHINE_LISTS.map(({ key, path }) => {
    let value: any;
    try {
      value = config[key] === undefined ? undefined : JSON.parse(config[key]);
    } catch {
      value = undefined; // a plain string: no machines in it
    }
    const list = path.reduce((v, step) => v?.[step], value);
    const names = Array.isArray(list)
      ? list.map((m) => m?.name).filter((n): n is string => typeof n === "string")
      : [];
    return { key, path, names };
  });
}

/** The program graph of a preview: one resource per URN (the last step of a URN wins), sorted by URN. */
export function readEstatePreview(digest: PreviewDigest): EstatePreview {
  const byUrn = new Map<string, EstateResource>();
  (digest.steps ?? []).forEach((step, i) => {
    const resource = resourceOf(step, `preview.steps[${i}]`);
    if (resource) byUrn.set(resource.urn, resource);
  });
  return {
    resources: [...byUrn.values()].sort((a, b) => byText(a.urn, b.urn)),
    machines: [...new Set(machineLists(digest.config ?? {}).flatMap((l) => l.names))].sort(byText),
  };
}

/** What a group holds. */
export type GroupKind = "pki" | "random" | "commands" | "objects" | "provider" | "component" | "other";

/** Several resources drawn as one node. */
export interface ResourceGroup {
  /** Stable id: `<owner>/<kind>[/<machine | provider>]` (owner left out for the stack's own). */
  readonly id: string;
  /** The top-level component it belongs to (its name), or "" for resources of the stack itself. */
  readonly owner: string;
  readonly kind: GroupKind;
  /** The machine (commands), the provider applying the objects (objects) or the package (other), else "". */
  readonly scope: string;
  /** The node's title: `PKI (tls)`, `commands on cp1`, `Kubernetes objects via member-member1` … */
  readonly title: string;
  /** Resources per short type name, sorted by name. */
  readonly types: readonly (readonly [string, number])[];
  /** URNs of its resources, sorted. */
  readonly resources: readonly string[];
}

/** A top-level component (or "" for the stack) the groups belong to. */
export interface GroupOwner {
  readonly name: string;
  /** Short type of the component, e.g. `KarmadaControlPlane`; "" for the stack. */
  readonly type: string;
}

/** Dependencies between two groups: `to` needs `from` (so `from` is created first). */
export interface GroupEdge {
  readonly from: string;
  readonly to: string;
  /** `dependency`: inputs or dependsOn; `provider`: `to`'s resources are applied through `from`. */
  readonly kind: "dependency" | "provider";
  /** Resource-level links it stands for. */
  readonly count: number;
}

/** The aggregated graph. */
export interface EstateSummary {
  readonly owners: readonly GroupOwner[];
  readonly groups: readonly ResourceGroup[];
  readonly edges: readonly GroupEdge[];
  /** Resources of the program (the stack and default providers excluded). */
  readonly resourceCount: number;
  /** Resource-level dependency and provider links between drawn resources. */
  readonly linkCount: number;
}

const PROVIDER_TYPE_PREFIX = "pulumi:providers:";

/** Default providers (`default_5_5_1`) are implicit: every resource of a package uses one. Not drawn. */
export function isDrawn(resource: EstateResource): boolean {
  if (resource.type === STACK_TYPE) return false;
  return !(resource.type.startsWith(PROVIDER_TYPE_PREFIX) && resource.name.startsWith("default"));
}

/** The machine a command runs on: commands are named `<component>-<machine>-<step>`; "" when none matches. */
export function machineOf(owner: string, name: string, machines: readonly string[]): string {
  const matching = machines.filter((m) => name === `${owner}-${m}` || name.startsWith(`${owner}-${m}-`));
  return matching.sort((a, b) => b.length - a.length)[0] ?? "";
}

/** Where a resource goes: its group's id parts, title and kind. */
interface Placement {
  readonly kind: GroupKind;
  readonly scope: string;
  readonly title: string;
}

function placement(resource: EstateResource, owner: string, machines: readonly string[]): Placement {
  const pkg = resource.type.split(":")[0];
  const short = shortTypeName(resource.type);
  if (resource.type.startsWith(PROVIDER_TYPE_PREFIX))
    return { kind: "provider", scope: resource.name, title: `${short} provider ${resource.name}` };
  if (!resource.custom) return { kind: "component", scope: "", title: `${short} ${resource.name}` };
  if (pkg === "tls") return { kind: "pki", scope: "", title: "PKI (tls)" };
  if (pkg === "random") return { kind: "random", scope: "", title: "random values" };
  if (pkg === "command") {
    const machine = machineOf(owner, resource.name, machines);
    return { kind: "commands", scope: machine, title: machine ? `commands on ${machine}` : "other commands" };
  }
  if (pkg === "kubernetes") {
    // one group per provider: which cluster they live in is what orders them; the kinds are listed
    const through = resource.provider ? parseUrn(resource.provider).name : "default";
    return { kind: "objects", scope: through, title: `Kubernetes objects via ${through}` };
  }
  return { kind: "other", scope: pkg, title: pkg };
}

/** The top-level component of each resource: the ancestor whose parent is the stack ("" for the stack's own). */
function ownersOf(resources: readonly EstateResource[]): Map<string, EstateResource | undefined> {
  const byUrn = new Map(resources.map((r) => [r.urn, r]));
  const topOf = (r: EstateResource): EstateResource | undefined => {
    let current = r;
    for (;;) {
      const parent = current.parent ? byUrn.get(current.parent) : undefined;
      if (!parent || parent.type === STACK_TYPE) return current.type === STACK_TYPE ? undefined : current;
      current = parent;
    }
  };
  return new Map(resources.map((r) => [r.urn, topOf(r)]));
}

/** The name of a resource's top-level component; "" for resources of the stack that are no component. */
function ownerName(top: EstateResource | undefined): string {
  return top && !top.custom ? top.name : "";
}

/** Which group each drawn resource belongs to (URN → group id), and the groups. */
export function groupResources(preview: EstatePreview): {
  groupOf: Map<string, string>;
  groups: ResourceGroup[];
} {
  const tops = ownersOf(preview.resources);
  const groupOf = new Map<string, string>();
  const members = new Map<string, { placement: Placement; owner: string; resources: EstateResource[] }>();
  for (const resource of preview.resources.filter(isDrawn)) {
    const owner = ownerName(tops.get(resource.urn));
    const place = placement(resource, owner, preview.machines);
    const id = [owner, place.kind, place.scope].filter((p) => p !== "").join("/");
    groupOf.set(resource.urn, id);
    const entry = members.get(id) ?? { placement: place, owner, resources: [] };
    entry.resources.push(resource);
    members.set(id, entry);
  }
  const groups = [...members]
    .sort(([a], [b]) => byText(a, b))
    .map(([id, { placement: place, owner, resources }]) => {
      const types = new Map<string, number>();
      for (const r of resources)
        types.set(shortTypeName(r.type), (types.get(shortTypeName(r.type)) ?? 0) + 1);
      return {
        id,
        owner,
        kind: place.kind,
        scope: place.scope,
        title: place.title,
        types: [...types].sort(([a], [b]) => byText(a, b)),
        resources: resources.map((r) => r.urn).sort(byText),
      };
    });
  return { groupOf, groups };
}

/** Every resource-level link between drawn resources: `from` must exist before `to`. */
export function resourceLinks(
  preview: EstatePreview,
): { from: string; to: string; kind: GroupEdge["kind"] }[] {
  const drawn = new Set(preview.resources.filter(isDrawn).map((r) => r.urn));
  return preview.resources
    .filter((r) => drawn.has(r.urn))
    .flatMap((r) => [
      ...r.dependencies.map((d) => ({ from: d, to: r.urn, kind: "dependency" as const })),
      ...(r.provider ? [{ from: r.provider, to: r.urn, kind: "provider" as const }] : []),
    ])
    .filter((link) => drawn.has(link.from));
}

/**
 * The summary graph: groups, and between them the resource-level links counted (links inside a group are
 * not drawn). Component resources become groups only when something depends on one directly.
 */
export function summarizeEstate(preview: EstatePreview): EstateSummary {
  const { groupOf, groups } = groupResources(preview);
  const links = resourceLinks(preview);
  const counts = new Map<string, number>();
  for (const link of links) {
    const from = groupOf.get(link.from)!;
    const to = groupOf.get(link.to)!;
    if (from === to) continue;
    const key = [from, to, link.kind].join("\n");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const edges = [...counts]
    .sort(([a], [b]) => byText(a, b))
    .map(([key, count]) => {
      const [from, to, kind] = key.split("\n");
      return { from, to, kind: kind as GroupEdge["kind"], count };
    });
  const linked = new Set(edges.flatMap((e) => [e.from, e.to]));
  const components = preview.resources.filter((r) => !r.custom && r.type !== STACK_TYPE);
  const owners = components
    .filter((r) => !r.parent || preview.resources.find((p) => p.urn === r.parent)?.type === STACK_TYPE)
    .map((r) => ({ name: r.name, type: shortTypeName(r.type) }))
    .sort((a, b) => byText(a.name, b.name));
  return {
    owners,
    groups: groups.filter((g) => g.kind !== "component" || linked.has(g.id)),
    edges,
    resourceCount: groupOf.size,
    linkCount: links.length,
  };
}

/**
 * `digest` reduced to what this module reads — each step's operation and URN, and its new state's `custom`,
 * parent, dependencies and provider; the machine names of the settings — for recording a preview as a
 * test fixture: no inputs, outputs, secrets or machine-specific paths.
 */
export function graphOnlyDigest(digest: PreviewDigest): PreviewDigest {
  const states = new Map(readEstatePreview(digest).resources.map((r) => [r.urn, r]));
  const nest = (path: readonly string[], leaf: unknown): unknown =>
    path.reduceRight((inner, step) => ({ [step]: inner }), leaf);
  const config = machineLists(digest.config ?? {}).map(({ key, path, names }) => {
    const list = names.map((name) => ({ name }));
    return [key, JSON.stringify(nest(path, list))];
  });
  return {
    config: Object.fromEntries(config),
    // sorted: the engine reports steps in the order the parallel registrations finished
    steps: [...(digest.steps ?? [])]
      .sort((a, b) => byText(a.urn, b.urn) || byText(a.op, b.op))
      .map((step) => {
        const r = states.get(step.urn);
        const state = step.newState as GraphState | undefined;
        return {
          op: step.op,
          urn: step.urn,
          ...(r && state
            ? {
                newState: {
                  custom: r.custom,
                  ...(r.parent ? { parent: r.parent } : {}),
                  dependencies: [...r.dependencies],
                  ...(state.provider ? { provider: state.provider } : {}),
                } as PreviewStep["newState"],
              }
            : {}),
        };
      }),
  };
}
