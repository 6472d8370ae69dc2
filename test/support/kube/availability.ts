/**
 * Watches whether an API is served while something else happens (a rolling restart, a machine
 * replaced): on a fixed interval asks every listed server at once for one path, a fresh connection each
 * time, and counts a poll good when any of them answers 200 — what a load balancer that health-checks its
 * backends can offer — then reports the longest stretch without a good poll.
 */
import { ApiCredentials } from "../../../devkit/kubeClient";
import { callApi } from "../../../lib/kube/rest";

/** One poll: when it was sent, how long it took, and whether a server answered 200. */
export interface AvailabilitySample {
  readonly atMs: number;
  readonly tookMs: number;
  readonly ok: boolean;
  /** Each server's status or connection error, for a poll none answered. */
  readonly failure?: string;
}

/** What a watch saw. */
export interface AvailabilityReport {
  readonly polls: number;
  readonly failures: number;
  /**
   * The longest stretch not covered by a good poll — a good poll covers the time from its request to
   * its answer, the server serving throughout — between the first request and the last answer, so a
   * failure at either edge counts too.
   */
  readonly longestGapMs: number;
  /**
   * The longest such stretch that holds a failed poll: how long clients saw requests fail. Unlike
   * `longestGapMs` it leaves out a stretch where only this watch itself was late (a busy event loop
   * sends the next poll late; nothing failed).
   */
  readonly longestOutageMs: number;
  /** The longest a good poll waited for its answer (served, but slowly). */
  readonly slowestAnswerMs: number;
  /** The distinct failures, each with how often it was seen. */
  readonly failureKinds: readonly string[];
}

/** The report of a list of samples, in the order they were sent. Pure. */
export function availabilityReport(samples: readonly AvailabilitySample[]): AvailabilityReport {
  if (samples.length === 0) {
    return {
      polls: 0,
      failures: 0,
      longestGapMs: 0,
      longestOutageMs: 0,
      slowestAnswerMs: 0,
      failureKinds: [],
    };
  }
  const sorted = [...samples].sort((a, b) => a.atMs - b.atMs);
  const good = sorted.filter((s) => s.ok);
  const end = Math.max(...samples.map((s) => s.atMs + s.tookMs));
  let coveredUntil = sorted[0].atMs;
  let longestGapMs = 0;
  let longestOutageMs = 0;
  let failedSince = false; // a failed poll since the last good one
  for (const s of sorted) {
    if (!s.ok) {
      failedSince = true;
      continue;
    }
    const gap = s.atMs - coveredUntil;
    longestGapMs = Math.max(longestGapMs, gap);
    if (failedSince) longestOutageMs = Math.max(longestOutageMs, gap);
    failedSince = false;
    coveredUntil = Math.max(coveredUntil, s.atMs + s.tookMs);
  }
  longestGapMs = Math.max(longestGapMs, end - coveredUntil);
  if (failedSince) longestOutageMs = Math.max(longestOutageMs, end - coveredUntil);
  const kinds = new Map<string, number>();
  for (const s of samples) if (!s.ok) kinds.set(s.failure!, (kinds.get(s.failure!) ?? 0) + 1);
  return {
    polls: samples.length,
    failures: samples.length - good.length,
    longestGapMs,
    longestOutageMs,
    slowestAnswerMs: Math.max(0, ...good.map((s) => s.tookMs)),
    failureKinds: [...kinds].map(([kind, n]) => `${n}× ${kind}`),
  };
}

/** A running watch; `stop()` ends it and reports. */
export interface AvailabilityWatch {
  stop(): Promise<AvailabilityReport>;
}

/** The failure of one request: its status or its connection error; undefined for a 200. */
async function failureOf(
  creds: ApiCredentials,
  apiPath: string,
  timeoutMs: number,
): Promise<string | undefined> {
  return callApi(creds, "GET", apiPath, undefined, timeoutMs).then(
    (res) => {
      if (res.status === 200) return undefined;
      // an API server's failed health checks come as `[-]<check> failed: …` lines
      const failed =
        typeof res.body === "string" ? res.body.split("\n").filter((l) => l.startsWith("[-]")) : [];
      return [`HTTP ${res.status}`, ...failed].join(" ");
    },
    (e: Error) => e.message,
  );
}

/**
 * Starts polling `GET apiPath` on every server of `servers` every `intervalMs` (the next poll starts
 * `intervalMs` after the previous one ended; each request times out after `timeoutMs`).
 */
export function watchAvailability(
  servers: readonly ApiCredentials[],
  apiPath: string,
  intervalMs = 250,
  timeoutMs = 3000,
): AvailabilityWatch {
  const samples: AvailabilitySample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const atMs = Date.now();
      const failures = await Promise.all(servers.map((creds) => failureOf(creds, apiPath, timeoutMs)));
      const ok = failures.some((f) => f === undefined);
      samples.push({
        atMs,
        tookMs: Date.now() - atMs,
        ok,
        failure: ok ? undefined : servers.map((c, i) => `${c.server}: ${failures[i]}`).join("; "),
      });
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return availabilityReport(samples);
    },
  };
}
