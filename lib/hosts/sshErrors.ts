import { MESSAGE_PREFIX } from "./script";

/** Why an SSH session could not run a script, from the client's stderr. */
export type SshFailure = "unreachable" | "auth" | "host-key" | "other";

/** Classifies the stderr of a failed SSH session (OpenSSH client or Go's x/crypto/ssh wording). */
export function classifySshFailure(stderr: string): SshFailure {
  const text = stderr.toLowerCase();
  if (
    /host key verification failed|remote host identification has changed|knownhosts|host key mismatch/.test(
      text,
    )
  ) {
    return "host-key";
  }
  if (
    /permission denied|unable to authenticate|no supported methods remain|authentication failed/.test(text)
  ) {
    return "auth";
  }
  if (
    /connection refused|no route to host|timed out|timeout|could not resolve|network is unreachable|i\/o timeout|dial tcp/.test(
      text,
    )
  ) {
    return "unreachable";
  }
  return "other";
}

const EXPLANATION: Record<SshFailure, string> = {
  unreachable: "host unreachable",
  auth: "SSH authentication failed (wrong private key or user?)",
  "host-key": "SSH host key does not match the pinned hostKey",
  other: "SSH session failed",
};

/**
 * The message for a step that never ran because SSH failed, in the same
 * `pulumi-karmada: <host>: <step>: <reason>` form the scripts use.
 */
export function explainSshFailure(host: string, endpoint: string, step: string, stderr: string): string {
  const firstLine = stderr.trim().split("\n").filter(Boolean).pop() ?? "";
  return `${MESSAGE_PREFIX}: ${host}: ${step}: ${EXPLANATION[classifySshFailure(stderr)]} (ssh ${endpoint}: ${firstLine})`;
}
