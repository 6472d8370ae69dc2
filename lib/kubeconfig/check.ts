/**
 * Checks a kubeconfig given as text (a secret setting: the host cluster's or a member's) before anything
 * is built from it: YAML, with the context to use, its cluster (with an `https` server) and its user.
 * Messages name the field and the kubeconfig's own entry names, never its contents.
 */
import { parse } from "yaml";
import { ConfigError, check, show } from "../validation/errors";

const FORM = "a kubeconfig (apiVersion: v1, kind: Config) with clusters, users and contexts";

interface Named {
  readonly name?: unknown;
  readonly [key: string]: unknown;
}

const entries = (config: Record<string, unknown>, list: string): Named[] =>
  Array.isArray(config[list])
    ? (config[list] as Named[]).filter((e) => typeof e === "object" && e !== null)
    : [];

/**
 * Checks kubeconfig `text` as the Kubernetes provider would use it: with `context` (else its
 * `current-context`, else its only context) resolving to a cluster with a server and to a user.
 */
export function validateKubeconfigText(field: string, text: string, context?: string): void {
  let config: unknown;
  try {
    config = parse(text);
  } catch {
    // the parser's message quotes the text: left out
    throw new ConfigError(field, "is not YAML", FORM);
  }
  check(
    typeof config === "object" && config !== null && !Array.isArray(config),
    field,
    "is not a kubeconfig",
    FORM,
  );
  const kubeconfig = config as Record<string, unknown>;
  const contexts = entries(kubeconfig, "contexts");
  const clusters = entries(kubeconfig, "clusters");
  check(clusters.length > 0, field, "is not a kubeconfig: it lists no clusters", FORM);
  const wanted = context ?? (kubeconfig["current-context"] as string | undefined);
  const chosen =
    wanted === undefined || wanted === ""
      ? contexts.length === 1
        ? contexts[0]
        : undefined
      : contexts.find((c) => c.name === wanted);
  check(
    chosen !== undefined,
    field,
    wanted ? `has no context ${show(wanted)}` : "names no current-context and has more than one context",
    contexts.map((c) => show(c.name)).join(", ") || "a kubeconfig with a context",
  );
  const ctx = (chosen.context ?? {}) as { cluster?: unknown; user?: unknown };
  const cluster = clusters.find((c) => c.name === ctx.cluster)?.cluster as { server?: unknown } | undefined;
  check(
    cluster !== undefined,
    field,
    `context ${show(chosen.name)} names cluster ${show(ctx.cluster)}, which it does not list`,
    clusters.map((c) => show(c.name)).join(", "),
  );
  check(
    typeof cluster.server === "string" && /^https?:\/\/\S+$/.test(cluster.server),
    field,
    `cluster ${show(ctx.cluster)} has no server URL`,
    "server: https://<host>:<port>",
  );
  const users = entries(kubeconfig, "users");
  check(
    users.some((u) => u.name === ctx.user),
    field,
    `context ${show(chosen.name)} names user ${show(ctx.user)}, which it does not list`,
    users.map((u) => show(u.name)).join(", ") || "a users entry",
  );
}
