/**
 * The first step of a pull member's removal, as `karmadactl unregister` takes it: delete the Works in
 * the member's execution namespace and wait until karmada-agent has finalized them (removed what they
 * put on the member, then their `karmada.io/execution-controller` finalizer) — before the Cluster is
 * deleted. Deleting the Cluster first makes Karmada delete `karmada-es-<cluster>`, and with it the Role
 * that lets the agent update those Works: the namespace, the Works owned by the Cluster and so the
 * Cluster itself then wait forever. Runs inside the engine's Node.js dynamic-provider host
 * (components/members/drain.ts), so the API calls come in as a function.
 */
import type { ApiAnswer, Clock } from "../kube/rest";

// a local binding exported by name: compiled, an `export const` is read off the module's `exports`,
// which the serializer would capture with the provider (see lib/kube/rest.ts)
/** The finalizer karmada-agent's execution controller (pull) puts on every Work. */
const EXECUTION_FINALIZER = "karmada.io/execution-controller";
export { EXECUTION_FINALIZER };

/** One API call: method, path, optional JSON body (PATCH: a merge patch). */
export type ApiCall = (method: string, apiPath: string, body?: unknown) => Promise<ApiAnswer>;

/** What to drain and how. */
export interface DrainTarget {
  /** The member's Cluster name. */
  readonly clusterName: string;
  /** Its execution namespace, `karmada-es-<cluster>`. */
  readonly namespace: string;
  /**
   * Remove the Works' finalizers at once instead of waiting for the agent (`forceRemove`: the member is
   * gone, so are its agent and the workloads' cluster).
   */
  readonly releaseAtOnce: boolean;
  /** How long the agent gets to finalize the Works. */
  readonly timeoutMs: number;
  /** Interval between checks. */
  readonly pollMs: number;
  /**
   * How long karmada-apiserver may refuse connections from the start before the drain gives up on it as
   * gone (as the Cluster's provider does with `deleteUnreachable`); once it answered, connection errors
   * are retried until the timeout.
   */
  readonly unreachableMs: number;
  /**
   * How long a Cluster reported not Ready by its agent (Ready `False`), or one without a Ready condition
   * since its creation, is waited for before the drain stops waiting: a member may recover. An `Unknown`
   * Ready (the agent's lease lapsed) is not waited for: Karmada's controller waited before saying so.
   */
  readonly unreadyGraceMs: number;
}

/**
 * What a drain did: Works deleted, Works whose finalizer it removed itself; `unreachable` when
 * karmada-apiserver never answered (nothing was drained: the control plane is gone).
 */
export interface DrainReport {
  readonly deleted: string[];
  readonly released: string[];
  readonly unreachable?: true;
}

const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

interface WorkItem {
  readonly metadata: {
    readonly name: string;
    readonly resourceVersion?: string;
    readonly deletionTimestamp?: string;
    readonly finalizers?: string[];
  };
}

/** Rounds a released Work may take to disappear before the drain gives up. */
const RELEASE_ROUNDS = 10;

const names = (works: WorkItem[]) => works.map((w) => w.metadata.name).join(", ");

function failure(what: string, answer: ApiAnswer): Error {
  const message = typeof answer.body === "string" ? answer.body : answer.body?.message;
  return new Error(`${what}: HTTP ${answer.status}${message ? ` ${message}` : ""}`);
}

/** karmada-apiserver refused every connection from the start for `unreachableMs`. */
class Unreachable extends Error {}

/**
 * `call`, retrying connection errors: until `unreachableMs` while the server never answered (then
 * {@link Unreachable}), until the deadline once it has (then the error itself).
 */
function reachable(call: ApiCall, target: DrainTarget, clock: Clock, deadline: number): ApiCall {
  let answered = false;
  return async (method, apiPath, body) => {
    const since = clock.now();
    for (;;) {
      try {
        const answer = await call(method, apiPath, body);
        answered = true;
        return answer;
      } catch (e) {
        if (!answered && clock.now() - since >= target.unreachableMs) throw new Unreachable(String(e));
        if (answered && clock.now() >= deadline) throw e;
        await clock.sleep(target.pollMs);
      }
    }
  };
}

/**
 * Whether the Cluster exists, whether its Ready condition is True, and since when no agent serves it:
 * - Ready `Unknown` is Karmada's cluster controller's verdict after the agent's lease lapsed for its
 *   grace period (or it never posted status): long since;
 * - Ready `False` is the agent's own report of an unhealthy member: since its lastTransitionTime;
 * - no Ready condition yet (a new Cluster, its agent starting): since the Cluster's creation.
 */
async function clusterState(
  call: ApiCall,
  clusterName: string,
): Promise<{ exists: boolean; ready: boolean; unreadySince: number }> {
  const answer = await call("GET", `/apis/cluster.karmada.io/v1alpha1/clusters/${clusterName}`);
  if (answer.status === 404) return { exists: false, ready: false, unreadySince: -Infinity };
  if (answer.status !== 200) throw failure(`reading Cluster ${clusterName}`, answer);
  const conditions: { type: string; status: string; lastTransitionTime?: string }[] =
    answer.body?.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === "Ready");
  if (ready?.status === "True") return { exists: true, ready: true, unreadySince: Infinity };
  const time = (iso?: string) => (iso && !Number.isNaN(Date.parse(iso)) ? Date.parse(iso) : -Infinity);
  const unreadySince =
    ready === undefined
      ? time(answer.body?.metadata?.creationTimestamp)
      : ready.status === "False"
        ? time(ready.lastTransitionTime)
        : -Infinity;
  return { exists: true, ready: false, unreadySince };
}

/**
 * Deletes every Work in the execution namespace and waits until none is left. karmada-agent finalizes
 * them while the Cluster is Ready. The drain removes their finalizer itself — as Karmada's cluster
 * controller does for a pull Cluster that is not Ready — when `releaseAtOnce`, when the Cluster is gone
 * (the agent's controller cannot finalize without it), when no agent serves the Cluster (see
 * {@link clusterState} and `unreadyGraceMs`), or when the timeout passes with the Cluster not Ready. With a Ready Cluster whose agent did not finalize in time it fails, naming
 * the Works left, and deletes nothing more. A karmada-apiserver that never answers within
 * `unreachableMs` is taken as gone with the control plane: nothing to drain.
 */
export async function drainExecutionSpace(
  call: ApiCall,
  target: DrainTarget,
  clock: Clock = realClock,
): Promise<DrainReport> {
  const deadline = clock.now() + target.timeoutMs;
  const deleted = new Set<string>();
  const released = new Set<string>();
  // only the first call can find the server unreachable: once it answered, errors are retried or thrown
  call = reachable(call, target, clock, deadline);
  try {
    await drainRounds(call, target, clock, deadline, deleted, released);
  } catch (e) {
    if (e instanceof Unreachable) return { deleted: [], released: [], unreachable: true };
    throw e;
  }
  return { deleted: [...deleted].sort(), released: [...released].sort() };
}

/** The drain's rounds: list, delete, release when due, until no Work is left. */
async function drainRounds(
  call: ApiCall,
  target: DrainTarget,
  clock: Clock,
  deadline: number,
  deleted: Set<string>,
  released: Set<string>,
): Promise<void> {
  const worksPath = `/apis/work.karmada.io/v1alpha1/namespaces/${target.namespace}/works`;
  for (;;) {
    const list = await call("GET", worksPath);
    if (list.status === 404) return; // the namespace (and so every Work) is gone
    if (list.status !== 200) throw failure(`listing the Works in ${target.namespace}`, list);
    const works: WorkItem[] = list.body?.items ?? [];
    if (works.length === 0) return;
    const current: WorkItem[] = [];
    for (const work of works) {
      if (work.metadata.deletionTimestamp) {
        current.push(work);
        continue;
      }
      const answer = await call("DELETE", `${worksPath}/${work.metadata.name}`);
      if (answer.status >= 300 && answer.status !== 404) {
        throw failure(`deleting Work ${target.namespace}/${work.metadata.name}`, answer);
      }
      deleted.add(work.metadata.name);
      // a Work with finalizers answers its deleting self (a new resourceVersion); one without is gone
      if (answer.body?.metadata?.deletionTimestamp) current.push(answer.body as WorkItem);
    }
    const late = clock.now() >= deadline;
    const cluster = await clusterState(call, target.clusterName);
    // no agent serves this Cluster (or its member is down) for long: Karmada itself would release
    const agentGone = !cluster.ready && clock.now() - cluster.unreadySince >= target.unreadyGraceMs;
    if (target.releaseAtOnce || !cluster.exists || agentGone || (late && !cluster.ready)) {
      for (const work of current.filter((w) => w.metadata.finalizers?.includes(EXECUTION_FINALIZER))) {
        const finalizers = work.metadata.finalizers!.filter((f) => f !== EXECUTION_FINALIZER);
        // the resourceVersion makes a concurrent change fail (409) rather than be overwritten: the next
        // round reads the Work again
        const answer = await call("PATCH", `${worksPath}/${work.metadata.name}`, {
          metadata: { finalizers, resourceVersion: work.metadata.resourceVersion },
        });
        if (answer.status < 300) released.add(work.metadata.name);
        else if (answer.status !== 404 && answer.status !== 409) {
          throw failure(`removing the finalizer of Work ${target.namespace}/${work.metadata.name}`, answer);
        }
      }
    } else if (late) {
      throw new Error(
        `Works of pull member ${target.clusterName} still in ${target.namespace} after ` +
          `${Math.round(target.timeoutMs / 1000)} s: ${names(works)}. karmada-agent removes them (with ` +
          `what they put on the member) and has not: check that it runs and reaches karmada-apiserver, ` +
          `then run destroy again — or, for a member that is gone, set forceRemove: true on its ` +
          `registration and run pulumi up first (its workloads are then left on it).`,
      );
    }
    // released Works normally vanish on the next round; something else holding them must not hang us
    if (clock.now() >= deadline + target.pollMs * RELEASE_ROUNDS) {
      throw new Error(
        `Works of pull member ${target.clusterName} still in ${target.namespace} after their ` +
          `finalizer was removed: ${names(works)} (other finalizers: see metadata.finalizers)`,
      );
    }
    await clock.sleep(target.pollMs);
  }
}
