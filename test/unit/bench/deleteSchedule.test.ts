import fc from "fast-check";
import { deleteSchedules, engineDependencies, StateResource } from "../../../bench/support/deleteSchedule";

const urn = (name: string) => `urn:pulumi:dev::estate::t::${name}`;

/*
 * stack ─┬─ provider ── a ── b        (a uses the provider, b dependsOn a)
 *        ├─ component ── d            (d a child of the component)
 *        └─ e                         (e dependsOn the component: d too, which precedes it)
 */
const STATE: StateResource[] = [
  { urn: urn("stack"), custom: false },
  { urn: urn("provider"), custom: true, parent: urn("stack") },
  { urn: urn("a"), custom: true, parent: urn("stack"), provider: `${urn("provider")}::id-1` },
  { urn: urn("b"), custom: true, parent: urn("stack"), propertyDependencies: { x: [urn("a")] } },
  { urn: urn("component"), custom: false, parent: urn("stack") },
  { urn: urn("d"), custom: true, parent: urn("component") },
  { urn: urn("e"), custom: true, parent: urn("stack"), dependencies: [urn("component")] },
];
const STEPS = new Map([
  [urn("b"), 10_000],
  [urn("a"), 1_000],
  [urn("d"), 5_000],
  [urn("e"), 2_000],
]);

describe("a destroy's delete schedules", () => {
  it("reads dependencies as the engine does: parent, provider, property dependencies, a component's children", () => {
    const deps = engineDependencies(STATE);
    expect([...deps.get(urn("a"))!].sort()).toEqual([urn("provider"), urn("stack")].sort());
    expect([...deps.get(urn("b"))!].sort()).toEqual([urn("a"), urn("stack")].sort());
    expect([...deps.get(urn("e"))!].sort()).toEqual([urn("component"), urn("d"), urn("stack")].sort());
  });

  it("deletes level by level, each level waiting for its slowest step", () => {
    const s = deleteSchedules(STATE, STEPS);
    expect(s.levels.map((l) => [...l.urns].sort())).toEqual([
      [urn("b"), urn("e")],
      [urn("a"), urn("d")],
      [urn("component"), urn("provider")],
      [urn("stack")],
    ]);
    expect(s.levels.map((l) => l.ms)).toEqual([10_000, 5_000, 0, 0]);
    expect(s.levels.slice(0, 2).map((l) => l.slowest)).toEqual([urn("b"), urn("d")]);
    // b (10 s) then d (5 s): d waits for b although nothing of d's depends on b
    expect(s.levelByLevelMs).toBe(15_000);
  });

  it("by dependencies alone the same steps take their critical path", () => {
    const s = deleteSchedules(STATE, STEPS);
    expect(s.byDependenciesMs).toBe(11_000);
    expect(s.criticalPath.filter((step) => step.ms > 0)).toEqual([
      { urn: urn("b"), ms: 10_000 },
      { urn: urn("a"), ms: 1_000 },
    ]);
  });

  // a random state: each resource may take a parent, a provider and dependencies among those before it
  const states = fc
    .array(
      fc.record({
        custom: fc.boolean(),
        parent: fc.nat(),
        deps: fc.array(fc.nat(), { maxLength: 3 }),
        ms: fc.nat({ max: 20_000 }),
      }),
      { minLength: 1, maxLength: 25 },
    )
    .map((rows) => {
      const state: StateResource[] = rows.map((row, i) => ({
        urn: urn(`r${i}`),
        custom: row.custom,
        parent: i > 0 ? urn(`r${row.parent % i}`) : undefined,
        dependencies: i > 0 ? row.deps.map((d) => urn(`r${d % i}`)) : [],
      }));
      return { state, steps: new Map(rows.map((row, i) => [urn(`r${i}`), row.ms])) };
    });

  it("its levels are the engine's: peel off what depends on nothing left, reversed", () => {
    fc.assert(
      fc.property(states, ({ state, steps }) => {
        const deps = engineDependencies(state);
        const condemned = new Set(state.map((r) => r.urn));
        const peeled: string[][] = [];
        while (condemned.size > 0) {
          const free = [...condemned].filter((u) => ![...deps.get(u)!].some((d) => condemned.has(d)));
          free.forEach((u) => condemned.delete(u));
          peeled.push(free.sort());
        }
        const levels = deleteSchedules(state, steps).levels.map((l) => [...l.urns].sort());
        expect(levels).toEqual(peeled.reverse());
      }),
    );
  });

  it("never takes longer by dependencies than level by level, nor less than its slowest step", () => {
    fc.assert(
      fc.property(states, ({ state, steps }) => {
        const s = deleteSchedules(state, steps);
        expect(s.byDependenciesMs).toBeLessThanOrEqual(s.levelByLevelMs);
        expect(s.byDependenciesMs).toBeGreaterThanOrEqual(Math.max(...steps.values()));
        expect(s.criticalPath.reduce((sum, step) => sum + step.ms, 0)).toBe(s.byDependenciesMs);
      }),
    );
  });
});
