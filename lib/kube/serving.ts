/**
 * Waiting for an API server to serve at the address a client will use. A workload can be Ready while
 * the path to it is not yet: kube-proxy programs a NodePort a moment after the Service's endpoints
 * appear, a cloud load balancer registers its targets minutes later. The Kubernetes provider reads the
 * API's discovery once, when it is configured, and a failure then marks the cluster unreachable for the
 * whole `up` ("configured Kubernetes cluster is unreachable"): so the provider is configured only once
 * this wait returns.
 */
import type { ApiAnswer, Clock } from "./rest";

/** One GET of the API server, through the endpoint and credentials the provider will use. */
export type ApiGet = (apiPath: string) => Promise<ApiAnswer>;

/** How long to wait and how often to ask. */
export interface ServingWait {
  readonly timeoutMs: number;
  readonly pollMs: number;
  /** Told each failed attempt's problem, before the wait goes on (to say why `up` is waiting). */
  readonly onRetry?: (problem: string, attempt: number) => void;
}

/** What the wait saw: how many requests it made, and the problem of each failed one, in order. */
export interface ServingReport {
  readonly attempts: number;
  readonly problems: readonly string[];
}

const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The path asked: 200 only once the API server is ready to serve (its storage reachable included). */
export const READINESS_PATH = "/readyz";

/** Why an answer is not "serving", in a few words (never the body: it may echo a request). */
function problemOf(answer: ApiAnswer): string | undefined {
  if (answer.status === 200) return undefined;
  if (answer.status === 401) return "401 Unauthorized: the kubeconfig's client certificate is refused";
  if (answer.status === 403) return "403 Forbidden: the kubeconfig's user may not read /readyz";
  return `answered ${answer.status}`;
}

/** A connection error's message, without the request's details. */
function describeError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e?.code ? `${e.code}` : (e?.message ?? String(err));
}

/**
 * Asks `GET /readyz` until it answers 200 (connection errors, TLS errors and any other status are
 * retried) and reports what it saw; throws once `timeoutMs` passed without a 200, the message saying
 * what the last attempt got. The first attempt is immediate, so a serving API costs one request.
 */
export async function waitUntilServing(
  get: ApiGet,
  wait: ServingWait,
  clock: Clock = REAL_CLOCK,
): Promise<ServingReport> {
  const deadline = clock.now() + wait.timeoutMs;
  const problems: string[] = [];
  for (;;) {
    let problem: string | undefined;
    try {
      problem = problemOf(await get(READINESS_PATH));
    } catch (err) {
      problem = describeError(err);
    }
    if (problem === undefined) return { attempts: problems.length + 1, problems };
    problems.push(problem);
    if (clock.now() >= deadline) {
      throw new Error(
        `not serving after ${Math.round(wait.timeoutMs / 1000)}s (${problems.length} attempts; last: ${problem})`,
      );
    }
    wait.onRetry?.(problem, problems.length);
    await clock.sleep(Math.min(wait.pollMs, Math.max(0, deadline - clock.now())));
  }
}
