/**
 * How a destroy's steps were scheduled, and how long the same steps would take scheduled otherwise.
 *
 * The engine deletes level by level (`ScheduleDeletes` in pkg/resource/deploy/step_generator.go): it
 * peels off the resources none of whose dependencies is still condemned, again and again, and deletes
 * those sets in reverse — each set (an antichain) in parallel, but a set starts only once the previous
 * one has finished. A resource's level is therefore the length of the longest dependency chain beneath
 * it, and two unrelated slow deletes at different levels run one after the other. Given the state the
 * destroy started from and each step's measured duration, this computes the engine's level-by-level
 * time and the time of the same steps each started as soon as everything depending on it is gone (the
 * critical path of the dependency graph): the difference is what the level barriers cost.
 * Pure: no engine, no clock.
 */

/** One resource of the state a destroy starts from: the fields the engine's dependency graph reads. */
export interface StateResource {
  readonly urn: string;
  readonly custom: boolean;
  readonly parent?: string;
  /** Provider reference, `<provider URN>::<id>`. */
  readonly provider?: string;
  readonly dependencies?: readonly string[];
  readonly propertyDependencies?: Readonly<Record<string, readonly string[]>>;
  readonly deletedWith?: string;
}

/** The URN of a provider reference `<urn>::<id>`. */
function providerUrn(reference: string): string {
  return reference.slice(0, reference.lastIndexOf("::"));
}

/**
 * Each resource's dependencies as the engine's dependency graph sees them (`DependenciesOf` in
 * pkg/resource/graph): its parent, provider, `dependsOn`, property dependencies and `deletedWith`; a
 * dependency on a component also brings that component's descendants that precede the resource in the
 * state. Resources are in state order (dependencies first).
 */
export function engineDependencies(resources: readonly StateResource[]): Map<string, Set<string>> {
  const index = new Map(resources.map((r, i) => [r.urn, i]));
  const children = new Map<string, string[]>();
  for (const r of resources) {
    if (r.parent) children.set(r.parent, [...(children.get(r.parent) ?? []), r.urn]);
  }
  const descendants = (urn: string): string[] =>
    (children.get(urn) ?? []).flatMap((child) => [child, ...descendants(child)]);
  const custom = new Map(resources.map((r) => [r.urn, r.custom]));
  const graph = new Map<string, Set<string>>();
  resources.forEach((r, i) => {
    const before = (urn: string) => urn !== "" && (index.get(urn) ?? Infinity) < i;
    const direct = [
      ...(r.provider ? [providerUrn(r.provider)] : []),
      ...(r.dependencies ?? []),
      ...Object.values(r.propertyDependencies ?? {}).flat(),
      ...(r.deletedWith ? [r.deletedWith] : []),
    ].filter(before);
    const all = new Set([...(r.parent && before(r.parent) ? [r.parent] : []), ...direct]);
    // the parent itself only: its other children are not dependencies
    for (const urn of direct) {
      if (custom.get(urn) === false) {
        for (const d of descendants(urn)) if (before(d)) all.add(d);
      }
    }
    graph.set(r.urn, all);
  });
  return graph;
}

/** One level of the engine's delete schedule: deleted together, after every level before it. */
interface DeleteLevel {
  readonly urns: readonly string[];
  /** The level's slowest step (ms), which the next level waits for. */
  readonly ms: number;
  readonly slowest?: string;
}

/** The two schedules of one destroy's steps. */
export interface DeleteSchedules {
  /** The engine's levels, in the order it deletes them. */
  readonly levels: readonly DeleteLevel[];
  /** Sum of the levels' slowest steps: the engine's level-by-level time for these steps (ms). */
  readonly levelByLevelMs: number;
  /** The same steps, each started once everything depending on it is deleted (ms). */
  readonly byDependenciesMs: number;
  /** The chain of steps that makes {@link byDependenciesMs}, first deleted first. */
  readonly criticalPath: readonly { readonly urn: string; readonly ms: number }[];
}

/**
 * Both schedules of a destroy of `resources` (state order) whose steps took `stepMs` (URN → ms; a
 * resource without a step, e.g. one deleted with another, takes 0).
 */
export function deleteSchedules(
  resources: readonly StateResource[],
  stepMs: ReadonlyMap<string, number>,
): DeleteSchedules {
  const deps = engineDependencies(resources);
  const ms = (urn: string) => stepMs.get(urn) ?? 0;
  // the engine's level: the longest chain of dependencies beneath a resource (state order is topological)
  const level = new Map<string, number>();
  for (const r of resources) {
    const below = [...deps.get(r.urn)!].map((d) => level.get(d)! + 1);
    level.set(r.urn, Math.max(0, ...below));
  }
  const top = Math.max(-1, ...level.values());
  const levels: DeleteLevel[] = [];
  for (let l = top; l >= 0; l--) {
    const urns = resources.filter((r) => level.get(r.urn) === l).map((r) => r.urn);
    const slowest = urns.reduce<string | undefined>(
      (a, u) => (a === undefined || ms(u) > ms(a) ? u : a),
      undefined,
    );
    levels.push({ urns, ms: slowest ? ms(slowest) : 0, slowest });
  }

  // by dependencies: a resource's delete ends `ms` after the last of its dependents' deletes
  const dependents = new Map<string, string[]>(resources.map((r) => [r.urn, []]));
  for (const [urn, ds] of deps) for (const d of ds) dependents.get(d)!.push(urn);
  const end = new Map<string, number>();
  const after = new Map<string, string | undefined>();
  for (const r of [...resources].reverse()) {
    const last = dependents
      .get(r.urn)!
      .reduce<string | undefined>(
        (a, u) => (a === undefined || end.get(u)! > end.get(a)! ? u : a),
        undefined,
      );
    after.set(r.urn, last);
    end.set(r.urn, (last ? end.get(last)! : 0) + ms(r.urn));
  }
  let cursor = resources.reduce<string | undefined>(
    (a, r) => (a === undefined || end.get(r.urn)! > end.get(a)! ? r.urn : a),
    undefined,
  );
  const criticalPath: { urn: string; ms: number }[] = [];
  while (cursor !== undefined) {
    criticalPath.unshift({ urn: cursor, ms: ms(cursor) });
    cursor = after.get(cursor);
  }
  return {
    levels,
    levelByLevelMs: levels.reduce((sum, l) => sum + l.ms, 0),
    byDependenciesMs: Math.max(0, ...end.values()),
    criticalPath,
  };
}
