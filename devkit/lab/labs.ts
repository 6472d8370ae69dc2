/**
 * The labs the project runs: one for the e2e tier (shared by every suite that needs pods, started once
 * per test run) and one for `npm run start:containerized`, on separate ranges so both can be up at once.
 * Each has the shape of a small production estate: a host cluster of three nodes (etcd's replicas must
 * be on different nodes) and two member clusters of one node each (a push and a pull member). The e2e
 * lab's host cluster has five nodes, so its etcd can grow from three members to five.
 */
import * as path from "path";
import { cacheRoot } from "../../lib/cache/entries";
import type { ClusterSpec, LabSpec } from "./plan";

/** The clusters of every project lab, in address order. */
export const ESTATE_CLUSTERS: readonly ClusterSpec[] = [
  { name: "host", nodes: 3 },
  { name: "member1", nodes: 1 },
  { name: "member2", nodes: 1 },
];

/** The e2e lab's clusters: the estate's, with room on the host cluster for five etcd members. */
const E2E_CLUSTERS: readonly ClusterSpec[] = ESTATE_CLUSTERS.map((c) =>
  c.name === "host" ? { ...c, nodes: 5 } : c,
);

/** The e2e tier's lab (10.231.0.0/16). */
export function e2eLabSpec(): LabSpec {
  return { name: "e2e", octet: 231, dir: path.join(cacheRoot(), "labs", "e2e"), clusters: E2E_CLUSTERS };
}

/** The containerized sandbox's lab (10.232.0.0/16), `npm run start:containerized`. */
export function sandboxLabSpec(): LabSpec {
  return {
    name: "sandbox",
    octet: 232,
    dir: path.join(cacheRoot(), "labs", "sandbox"),
    clusters: ESTATE_CLUSTERS,
  };
}

/** A project lab by name. */
export function labSpecNamed(name: string): LabSpec {
  if (name === "e2e") return e2eLabSpec();
  if (name === "sandbox") return sandboxLabSpec();
  throw new Error(`unknown lab ${JSON.stringify(name)} (known: e2e, sandbox)`);
}
