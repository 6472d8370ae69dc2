import type { ApiAnswer } from "../../../lib/kube/rest";
import { DrainTarget, EXECUTION_FINALIZER, drainExecutionSpace } from "../../../lib/members/drain";
import { steppedClock } from "../../support/clock";

const NS = "karmada-es-m1";
const WORKS = `/apis/work.karmada.io/v1alpha1/namespaces/${NS}/works`;
const CLUSTER = "/apis/cluster.karmada.io/v1alpha1/clusters/m1";

interface Work {
  name: string;
  resourceVersion: number;
  deleting: boolean;
  finalizers: string[];
}

/**
 * karmada-apiserver's Work and Cluster endpoints as far as the drain uses them, with finalizer
 * semantics (a deleted Work stays until its finalizers are gone) and a simulated agent.
 */
class FakeKarmada {
  works = new Map<string, Work>();
  calls: string[] = [];
  cluster: "ready" | "not-ready" | "gone" = "ready";
  /** When a not-ready Cluster's Ready condition turned (the drain's clock); undefined: no condition at all. */
  unreadySince?: number = 0;
  /** A not-ready Cluster's Ready status: the agent's `False`, or Karmada's `Unknown` (lease lapsed). */
  readyStatus: "False" | "Unknown" = "False";
  /** The Cluster's creationTimestamp (the drain's clock). */
  createdAt = -600_000;
  namespaceGone = false;
  /** The agent finalizes a deleted Work after this many list calls (never: Infinity). */
  agentDelay = 1;
  /** Status answered to the next PATCH (a conflict), once. */
  patchStatus?: number;
  listStatus = 200;
  private lists = 0;

  constructor(names: string[]) {
    for (const name of names)
      this.works.set(name, { name, resourceVersion: 1, deleting: false, finalizers: [EXECUTION_FINALIZER] });
  }

  private answer(status: number, body: unknown = {}): ApiAnswer {
    return { status, body };
  }

  private item(w: Work) {
    return {
      metadata: {
        name: w.name,
        resourceVersion: String(w.resourceVersion),
        finalizers: [...w.finalizers],
        ...(w.deleting ? { deletionTimestamp: "2026-11-27T00:00:00Z" } : {}),
      },
    };
  }

  private agentRound(): void {
    this.lists++;
    if (this.cluster !== "ready" || this.lists <= this.agentDelay) return;
    for (const work of this.works.values())
      if (work.deleting) work.finalizers = work.finalizers.filter((f) => f !== EXECUTION_FINALIZER);
    this.collect();
  }

  private collect(): void {
    for (const [name, work] of this.works)
      if (work.deleting && work.finalizers.length === 0) this.works.delete(name);
  }

  call = async (method: string, apiPath: string, body?: any): Promise<ApiAnswer> => {
    this.calls.push(`${method} ${apiPath}`);
    if (apiPath === CLUSTER) {
      if (this.cluster === "gone") return this.answer(404);
      if (this.cluster === "ready")
        return this.answer(200, { status: { conditions: [{ type: "Ready", status: "True" }] } });
      const creationTimestamp = new Date(this.createdAt).toISOString();
      if (this.unreadySince === undefined)
        return this.answer(200, { metadata: { creationTimestamp }, status: {} });
      const lastTransitionTime = new Date(this.unreadySince).toISOString();
      const ready = { type: "Ready", status: this.readyStatus, lastTransitionTime };
      return this.answer(200, { metadata: { creationTimestamp }, status: { conditions: [ready] } });
    }
    if (this.namespaceGone) return this.answer(404, { message: `namespaces "${NS}" not found` });
    if (method === "GET" && apiPath === WORKS) {
      if (this.listStatus !== 200) return this.answer(this.listStatus, { message: "forbidden" });
      this.agentRound();
      return this.answer(200, {
        items: [...this.works.values()].map((w) => this.item(w)),
      });
    }
    const work = this.works.get(apiPath.slice(WORKS.length + 1));
    if (!work) return this.answer(404);
    if (method === "DELETE") {
      work.deleting = true;
      work.resourceVersion++;
      return this.answer(200, this.item(work));
    }
    if (method === "PATCH") {
      if (this.patchStatus) {
        const status = this.patchStatus;
        this.patchStatus = undefined;
        return this.answer(status);
      }
      if (body.metadata.resourceVersion !== String(work.resourceVersion)) return this.answer(409);
      work.finalizers = body.metadata.finalizers;
      work.resourceVersion++;
      this.collect();
      return this.answer(200);
    }
    throw new Error(`unexpected ${method} ${apiPath}`);
  };
}

const target = (extra: Partial<DrainTarget> = {}): DrainTarget => ({
  clusterName: "m1",
  namespace: NS,
  releaseAtOnce: false,
  timeoutMs: 10_000,
  pollMs: 1000,
  unreachableMs: 5000,
  unreadyGraceMs: 60_000,
  ...extra,
});

const patches = (api: FakeKarmada) => api.calls.filter((c) => c.startsWith("PATCH"));

describe("drainExecutionSpace (a pull member's Works before its Cluster, as karmadactl unregister)", () => {
  it("deletes every Work and returns once the agent has finalized them, touching no finalizer itself", async () => {
    const api = new FakeKarmada(["karmada-impersonator-1", "nginx-2"]);
    api.agentDelay = 3;
    const clock = steppedClock();
    const report = await drainExecutionSpace(api.call, target(), clock);
    expect(report).toEqual({ deleted: ["karmada-impersonator-1", "nginx-2"], released: [] });
    expect(api.works.size).toBe(0);
    expect(patches(api)).toEqual([]);
    // each Work deleted once, not again while it waits for its finalizer
    expect(api.calls.filter((c) => c.startsWith("DELETE"))).toHaveLength(2);
    expect(clock.slept).toBe(3000);
  });

  it("fails after the timeout with a Ready Cluster whose agent does not finalize, naming the Works and the way out", async () => {
    const api = new FakeKarmada(["w1", "w2"]);
    api.agentDelay = Infinity;
    await expect(drainExecutionSpace(api.call, target(), steppedClock())).rejects.toThrow(
      /Works of pull member m1 still in karmada-es-m1 after 10 s: w1, w2\..*karmada-agent.*forceRemove: true/s,
    );
    // the Works stay (deleting) for the agent: the drain never removed a finalizer of a Ready member
    expect(patches(api)).toEqual([]);
    expect([...api.works.values()].every((w) => w.deleting && w.finalizers.length === 1)).toBe(true);
  });

  it("waits for a not-Ready Cluster's agent until the timeout, then removes the finalizers as Karmada's cluster controller would", async () => {
    const api = new FakeKarmada(["w1"]);
    api.cluster = "not-ready";
    const clock = steppedClock();
    const report = await drainExecutionSpace(api.call, target(), clock);
    expect(report).toEqual({ deleted: ["w1"], released: ["w1"] });
    // released at the first check after the timeout, gone at the next
    expect(clock.slept).toBe(11_000);
    expect(api.works.size).toBe(0);
  });

  it("releases at once when Karmada marked the Cluster Unknown (lease lapsed), or it reported False for the grace", async () => {
    const cases: ((api: FakeKarmada) => void)[] = [
      (api) => Object.assign(api, { readyStatus: "Unknown", unreadySince: 0 }),
      (api) => Object.assign(api, { readyStatus: "False", unreadySince: -60_000 }),
      (api) => Object.assign(api, { unreadySince: undefined }),
    ];
    for (const setup of cases) {
      const api = new FakeKarmada(["w1"]);
      api.cluster = "not-ready";
      setup(api);
      const clock = steppedClock();
      expect(await drainExecutionSpace(api.call, target(), clock)).toEqual({
        deleted: ["w1"],
        released: ["w1"],
      });
      expect(clock.slept).toBe(1000);
    }
    // an agent's False younger than the grace (5 s here) is waited for, and so is a Cluster created 2 s
    // ago that has no condition yet: released once as old as the grace
    for (const setup of [
      (api: FakeKarmada) => Object.assign(api, { readyStatus: "False", unreadySince: -2000 }),
      (api: FakeKarmada) => Object.assign(api, { unreadySince: undefined, createdAt: -2000 }),
    ]) {
      const api = new FakeKarmada(["w1"]);
      api.cluster = "not-ready";
      setup(api);
      const clock = steppedClock();
      expect(await drainExecutionSpace(api.call, target({ unreadyGraceMs: 5000 }), clock)).toEqual({
        deleted: ["w1"],
        released: ["w1"],
      });
      expect(clock.slept).toBe(4000);
    }
  });

  it("removes the finalizers at once with releaseAtOnce (forceRemove) or when the Cluster is gone", async () => {
    for (const setup of [
      (api: FakeKarmada) => ({ api, t: target({ releaseAtOnce: true }) }),
      (api: FakeKarmada) => {
        api.cluster = "gone";
        return { api, t: target() };
      },
    ]) {
      const { api, t } = setup(new FakeKarmada(["w1", "w2"]));
      api.agentDelay = Infinity;
      const clock = steppedClock();
      expect(await drainExecutionSpace(api.call, t, clock)).toEqual({
        deleted: ["w1", "w2"],
        released: ["w1", "w2"],
      });
      expect(clock.slept).toBe(1000);
      expect(api.works.size).toBe(0);
    }
  });

  it("reads a Work again after a conflicting change instead of overwriting it", async () => {
    const api = new FakeKarmada(["w1"]);
    api.agentDelay = Infinity;
    api.patchStatus = 409;
    const report = await drainExecutionSpace(api.call, target({ releaseAtOnce: true }), steppedClock());
    expect(report.released).toEqual(["w1"]);
    expect(patches(api)).toHaveLength(2);
  });

  it("gives up on a karmada-apiserver that never answers (the control plane is gone), but retries one that did", async () => {
    const refused = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.6.100:5443"));
    const clock = steppedClock();
    expect(await drainExecutionSpace(refused, target(), clock)).toEqual({
      deleted: [],
      released: [],
      unreachable: true,
    });
    expect(clock.slept).toBe(5000);
    // a restart in the middle: the calls failing for three seconds are retried, the drain completes
    const api = new FakeKarmada(["w1"]);
    api.agentDelay = 2;
    let blips = 0;
    const flaky = (method: string, apiPath: string, body?: unknown) =>
      method === "DELETE" && blips++ < 3 ? refused() : api.call(method, apiPath, body);
    expect(await drainExecutionSpace(flaky, target(), steppedClock())).toEqual({
      deleted: ["w1"],
      released: [],
    });
    expect(api.works.size).toBe(0);
  });

  it("is done at once when the execution namespace is gone, and names the status of a refused list", async () => {
    const gone = new FakeKarmada(["w1"]);
    gone.namespaceGone = true;
    expect(await drainExecutionSpace(gone.call, target(), steppedClock())).toEqual({
      deleted: [],
      released: [],
    });
    const refused = new FakeKarmada(["w1"]);
    refused.listStatus = 403;
    await expect(drainExecutionSpace(refused.call, target(), steppedClock())).rejects.toThrow(
      "listing the Works in karmada-es-m1: HTTP 403 forbidden",
    );
  });
});
