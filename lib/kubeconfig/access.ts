import { parse } from "yaml";
import type { ApiAccess } from "../kube/rest";

interface NamedEntry {
  readonly name?: string;
  readonly [key: string]: any;
}

const decode = (b64: string): string => Buffer.from(b64, "base64").toString("utf8");

/** The entry of `list` named `name` (the current context's), or the only one when no context is set. */
function pick(kubeconfig: any, list: string, name: string | undefined): Record<string, any> {
  const entries: NamedEntry[] = Array.isArray(kubeconfig?.[list]) ? kubeconfig[list] : [];
  const entry =
    name === undefined && entries.length === 1 ? entries[0] : entries.find((e) => e.name === name);
  const value = entry?.[list.slice(0, -1)];
  if (!value) throw new Error(`kubeconfig: no ${list.slice(0, -1)} entry ${name ?? "(no current-context)"}`);
  return value;
}

/**
 * What a request needs from a kubeconfig with embedded data: its current context's server, CA, and
 * client certificate or token. Throws naming the missing field; the message never holds a key or token.
 */
export function apiAccessFromKubeconfig(text: string): ApiAccess {
  const kubeconfig = parse(text);
  const currentName = kubeconfig?.["current-context"];
  const context =
    currentName === undefined ? undefined : (pick(kubeconfig, "contexts", currentName) as NamedEntry);
  const cluster = pick(kubeconfig, "clusters", context?.cluster);
  if (typeof cluster.server !== "string") throw new Error("kubeconfig: the cluster entry has no server");
  if (typeof cluster["certificate-authority-data"] !== "string") {
    throw new Error("kubeconfig: the cluster entry has no certificate-authority-data");
  }
  const base = { server: cluster.server, caPem: decode(cluster["certificate-authority-data"]) };
  const user = pick(kubeconfig, "users", context?.user);
  if (typeof user["client-certificate-data"] === "string" && typeof user["client-key-data"] === "string") {
    return {
      ...base,
      certPem: decode(user["client-certificate-data"]),
      keyPem: decode(user["client-key-data"]),
    };
  }
  if (typeof user.token === "string") return { ...base, token: user.token };
  throw new Error(
    "kubeconfig: the user entry has neither client-certificate-data with client-key-data nor a token",
  );
}
