/**
 * Rules about the hosts a stack reaches over SSH: every connection pins the host's key, or the first
 * machine to answer on that address gets the estate's certificates and keys.
 */
import { PolicySubject, PolicyViolation, prop } from "./subject";

/** Resources that open an SSH connection to a host. */
const REMOTE_TYPES: ReadonlySet<string> = new Set([
  "command:remote:Command",
  "command:remote:CopyToRemote",
  "command:remote:CopyFile",
]);

/** SSH connections without `hostKey` (a jump host's too). One finding per host, on its first resource. */
export function hostKeysPinned(resources: readonly PolicySubject[]): PolicyViolation[] {
  const seen = new Set<string>();
  const found: PolicyViolation[] = [];
  for (const r of resources) {
    if (!REMOTE_TYPES.has(r.type)) continue;
    const connection = prop(r.props, "connection");
    if (connection === undefined) continue; // not known yet
    for (const [hop, conn] of [
      ["host", connection],
      ["jump host", prop(connection, "proxy")],
    ] as const) {
      if (conn === undefined || conn === null) continue;
      const host = prop(conn, "host");
      const key = prop(conn, "hostKey");
      if (typeof key === "string" && key !== "") continue;
      const address = typeof host === "string" ? host : "(unknown address)";
      if (seen.has(`${hop} ${address}`)) continue;
      seen.add(`${hop} ${address}`);
      found.push({
        urn: r.urn,
        message:
          `the ${hop} ${address} (first used by ${r.name}) is reached without a pinned SSH host key. Fix: set ` +
          `hostKey: "<type> <base64>" on that host (ssh-keyscan -t ed25519 ${address}).`,
      });
    }
  }
  return found;
}
