/**
 * Bench: a hundred push member clusters registered by one `pulumi up` of the local estate (`npm start`'s:
 * etcd on 3 systemd machines, the control plane on 2 behind HAProxy, Karmada's real controllers), kept
 * Ready by karmada-controller-manager. The hundred Clusters share the estate's three member API servers,
 * each with its own credentials namespace there (its own ServiceAccounts and tokens); the stacks program
 * reaches each server through one provider. Against: one cluster added the same way, and Karmada's own
 * published scale test (cluster registration P99 6.9 s at 100 clusters). Per round, not measured: the
 * estate up with its three members Ready; measured: an `up` adding one cluster until Ready, an `up`
 * removing it, an `up` adding a hundred until all Ready, an `up` removing them. Prints where the engine's
 * time went per resource kind, the machine's CPU, and the memory of the engine, the provider plugins and
 * the program. BENCH_ROUNDS (default 1) rounds.
 *
 * Registration latency of one Cluster: from the Cluster object's creation (its creationTimestamp) to its
 * Ready condition turning True (lastTransitionTime), both set by karmada-apiserver and the controllers, as
 * Karmada's test measures it (whole seconds).
 *
 * Run: npx ts-node --transpile-only -P tsconfig.json bench/hundred-members.ts
 * Needs the test bed (scripts/testbed/build.sh) and the local estate's lab free (no `npm start` estate).
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import { ApiCredentials, apiGet, credentialsFromKubeconfig, waitFor } from "../devkit/kubeClient";
import { startAgentsAndWait, writeAdminKubeconfig } from "../devkit/sandbox/estate";
import { LOCAL_RUN_OPTIONS, SettingsEdit } from "../devkit/sandbox/stack";
import { LocalEstate, startLocalEstate } from "../devkit/engine/localEstate";
import { CpuMeter, CpuUse, describeCpuUse } from "./support/cpuUse";
import { EngineStepClock, describeKindTimings, timingsByKind } from "./support/engineTimings";
import { figureOf, median, reportFigure, timed } from "./support/figures";
import { describeMemoryUse, MemoryMeter, MemoryUse } from "./support/memoryUse";

const BENCH = "hundred-members";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const MANY = 100;
/** Karmada's published figure: cluster registration latency P99 at 100 clusters (karmada.io, test report). */
const KARMADA_P99_MS = 6900;

const scaleName = (i: number) => `scale-${String(i + 1).padStart(3, "0")}`;

/**
 * karmada-controller-manager's Cluster workers (`--concurrent-cluster-syncs`, Karmada's default 5): each
 * first sync of a new Cluster builds its client and informers and probes its health, so a hundred new
 * Clusters queue behind five workers. The bench measures the default and this many.
 */
const MORE_CLUSTER_SYNCS = 20;
/** How long the Clusters must stay Ready once all are (three of the controller's 10 s status periods). */
const STAY_READY_MS = 30_000;

/**
 * The estate's settings with `count` extra push clusters spread over the bed's member API servers, and
 * karmada-controller-manager's Cluster workers set to `clusterSyncs` (Karmada's default when undefined).
 */
function withClusters(count: number, clusterSyncs?: number): SettingsEdit {
  return (config) => {
    if (clusterSyncs !== undefined) {
      const cp = config["karmada:controlPlane"];
      const components = (cp.components ??= {});
      components.controllerManager = {
        ...components.controllerManager,
        extraArgs: {
          ...components.controllerManager?.extraArgs,
          "concurrent-cluster-syncs": String(clusterSyncs),
        },
      };
    }
    const members = config["karmada:members"] as { apiEndpoint: string }[];
    const servers = members.map((m) => m.apiEndpoint);
    for (let i = 0; i < count; i++) {
      members.push({
        clusterName: scaleName(i),
        mode: "Push",
        apiEndpoint: servers[i % servers.length],
        credentialsNamespace: `karmada-cluster-${scaleName(i)}`,
      } as never);
    }
  };
}

/** The scale Clusters in Karmada: name → registration latency in ms when Ready, undefined until then. */
async function scaleClusters(karmada: ApiCredentials): Promise<Map<string, number | undefined>> {
  const list = await apiGet(karmada, "/apis/cluster.karmada.io/v1alpha1/clusters");
  const out = new Map<string, number | undefined>();
  for (const c of list.items) {
    if (!String(c.metadata.name).startsWith("scale-")) continue;
    const ready = c.status?.conditions?.find((x: any) => x.type === "Ready" && x.status === "True");
    out.set(
      c.metadata.name,
      ready ? Date.parse(ready.lastTransitionTime) - Date.parse(c.metadata.creationTimestamp) : undefined,
    );
  }
  return out;
}

/** The value at quantile `q` (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

interface Registration {
  /** The `up` alone. */
  readonly upMs: number;
  /** From the `up`'s start until every added Cluster is Ready. */
  readonly allReadyMs: number;
  /** Each Cluster's registration latency. */
  readonly latencies: readonly number[];
  /** The `up` removing them again. */
  readonly removeMs: number;
  readonly cpu: CpuUse;
  readonly memory: MemoryUse;
  readonly resources: number;
}

/**
 * An `up` adding `count` clusters, a wait until all are Ready and stay Ready, an `up` removing them;
 * checks both ways. With `clusterSyncs`, the controller-manager runs that many Cluster workers (set by an
 * unmeasured `up` before, and left set: the next call's settings decide).
 */
async function register(
  estate: LocalEstate,
  karmada: ApiCredentials,
  count: number,
  clusterSyncs?: number,
): Promise<Registration> {
  const { stack: workers } = await estate.stack(withClusters(0, clusterSyncs));
  await workers.up({ ...LOCAL_RUN_OPTIONS, color: "never" });
  const { stack } = await estate.stack(withClusters(count, clusterSyncs));
  const clock = new EngineStepClock();
  let cpuUse: CpuUse | undefined;
  let memoryUse: MemoryUse | undefined;
  const cpu = new CpuMeter();
  const memory = new MemoryMeter();
  cpu.start();
  memory.start();
  const started = performance.now();
  const up = await timed(() =>
    stack.up({ ...LOCAL_RUN_OPTIONS, color: "never", onEvent: (e: EngineEvent) => clock.onEvent(e) }),
  ).finally(() => {
    cpuUse = cpu.stop();
    memoryUse = memory.stop();
  });
  let clusters = new Map<string, number | undefined>();
  await waitFor(
    `${count} scale clusters Ready`,
    async () => {
      clusters = await scaleClusters(karmada);
      return clusters.size === count && [...clusters.values()].every((v) => v !== undefined);
    },
    600_000,
    1000,
  );
  const allReadyMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, STAY_READY_MS));
  const later = await scaleClusters(karmada);
  const lost = [...later].filter(([, latency]) => latency === undefined).map(([name]) => name);
  if (later.size !== count || lost.length)
    throw new Error(
      `${STAY_READY_MS / 1000} s after all were Ready, not Ready: ${lost.join(", ") || "(missing)"}`,
    );
  const created = up.result.summary.resourceChanges?.create ?? 0;
  console.log(
    `  ${count} cluster(s): up ${(up.ms / 1000).toFixed(1)} s (${created} resources created), all Ready after ` +
      `${(allReadyMs / 1000).toFixed(1)} s`,
  );
  console.log(describeKindTimings(timingsByKind(clock.steps()), 6));
  console.log(describeCpuUse(cpuUse!));
  console.log(describeMemoryUse(memoryUse!));

  const { stack: without } = await estate.stack(withClusters(0, clusterSyncs));
  const removal = await timed(() => without.up({ ...LOCAL_RUN_OPTIONS, color: "never" }));
  const left = await scaleClusters(karmada);
  if (left.size) throw new Error(`after removal, Clusters remain: ${[...left.keys()].join(", ")}`);
  console.log(`  removed in ${(removal.ms / 1000).toFixed(1)} s`);
  return {
    upMs: up.ms,
    allReadyMs,
    latencies: [...clusters.values()] as number[],
    removeMs: removal.ms,
    cpu: cpuUse!,
    memory: memoryUse!,
    resources: created,
  };
}

async function main(): Promise<void> {
  const estate = await startLocalEstate("pk-bench-hundred-");
  const rounds: { one: Registration; many: Registration; moreWorkers: Registration }[] = [];
  try {
    const { stack, local } = await estate.stack();
    await stack.up({ ...LOCAL_RUN_OPTIONS, color: "never" });
    const kubeconfig = writeAdminKubeconfig(estate.dir, local);
    await startAgentsAndWait(estate.bed, kubeconfig);
    const karmada = credentialsFromKubeconfig(fs.readFileSync(kubeconfig, "utf8"));
    for (let r = 0; r < ROUNDS; r++) {
      console.log(`\n=== round ${r + 1} of ${ROUNDS}`);
      const one = await register(estate, karmada, 1);
      const many = await register(estate, karmada, MANY);
      console.log(`  with --concurrent-cluster-syncs=${MORE_CLUSTER_SYNCS}:`);
      const moreWorkers = await register(estate, karmada, MANY, MORE_CLUSTER_SYNCS);
      rounds.push({ one, many, moreWorkers });
    }
  } finally {
    await estate.stop();
  }

  const p = (q: number, pick: (r: (typeof rounds)[number]) => Registration = (r) => r.many) =>
    rounds.map((r) => quantile(pick(r).latencies, q));
  const mib = (pick: (m: MemoryUse) => number) => rounds.map((r) => pick(r.many.memory));
  const note = (r: Registration) =>
    `${r.resources} resources created; all Ready ${(r.allReadyMs / 1000).toFixed(1)} s after the up began; ` +
    `removal ${(r.removeMs / 1000).toFixed(1)} s; CPU ${(r.cpu.busyMs / 1000).toFixed(1)} s busy`;
  const last = rounds[rounds.length - 1];
  reportFigure(
    figureOf({
      bench: BENCH,
      id: `${BENCH}.up`,
      figure: `${MANY} push clusters (on 3 member API servers) in one \`up\` of the local estate vs one`,
      ours: rounds.map((r) => r.many.upMs),
      baselineLabel: "one cluster's `up`",
      baseline: rounds.map((r) => r.one.upMs),
      target: { kind: "seconds", max: 300 },
      note: `${note(last.many)}; one cluster: ${note(last.one)}`,
    }),
  );
  reportFigure(
    figureOf({
      bench: BENCH,
      id: `${BENCH}.registration-p99`,
      figure: `cluster registration latency P99 at ${MANY} clusters (Cluster created → Ready)`,
      ours: p(0.99),
      baselineLabel: "Karmada's published P99 at 100 clusters",
      baseline: rounds.map(() => KARMADA_P99_MS),
      target: { kind: "ratio", max: 1 },
      note:
        `Karmada's default of 5 Cluster workers in karmada-controller-manager; P50 ${(median(p(0.5)) / 1000).toFixed(1)} s; ` +
        `one cluster alone ${(median(rounds.map((r) => r.one.latencies[0])) / 1000).toFixed(1)} s; all stayed Ready ${STAY_READY_MS / 1000} s`,
    }),
  );
  const more = (r: (typeof rounds)[number]) => r.moreWorkers;
  reportFigure(
    figureOf({
      bench: BENCH,
      id: `${BENCH}.registration-p99.more-workers`,
      figure: `cluster registration latency P99 at ${MANY} clusters, karmada-controller-manager --concurrent-cluster-syncs=${MORE_CLUSTER_SYNCS}`,
      ours: p(0.99, more),
      baselineLabel: "Karmada's published P99 at 100 clusters",
      baseline: rounds.map(() => KARMADA_P99_MS),
      target: { kind: "ratio", max: 1 },
      note:
        `P50 ${(median(p(0.5, more)) / 1000).toFixed(1)} s; the \`up\` ${(median(rounds.map((r) => more(r).upMs)) / 1000).toFixed(1)} s, ` +
        `all Ready ${(median(rounds.map((r) => more(r).allReadyMs)) / 1000).toFixed(1)} s after it began; all stayed Ready ${STAY_READY_MS / 1000} s`,
    }),
  );
  reportFigure(
    figureOf({
      bench: BENCH,
      id: `${BENCH}.memory.engine`,
      figure: `peak memory of the engine and its provider plugins, the ${MANY}-cluster \`up\``,
      unit: "MiB",
      ours: mib((m) => m.peakMib.engine + m.peakMib.providers + m.peakMib["dynamic providers"]),
      baselineLabel: "the one-cluster `up`",
      baseline: rounds.map(
        (r) =>
          r.one.memory.peakMib.engine +
          r.one.memory.peakMib.providers +
          r.one.memory.peakMib["dynamic providers"],
      ),
      target: { kind: "ratio", max: 2 },
      note: describeMemoryUse(last.many.memory).trim(),
    }),
  );
  reportFigure(
    figureOf({
      bench: BENCH,
      id: `${BENCH}.memory.program`,
      figure: `peak memory of the Pulumi program (Node.js), the ${MANY}-cluster \`up\``,
      unit: "MiB",
      ours: mib((m) => m.peakMib.program),
      baselineLabel: "the one-cluster `up`",
      baseline: rounds.map((r) => r.one.memory.peakMib.program),
      target: { kind: "ratio", max: 2 },
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
