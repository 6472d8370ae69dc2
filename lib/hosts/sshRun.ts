/**
 * Runs a script on a host with the OpenSSH client, for code that runs inside the engine's Node.js
 * dynamic-provider host (the host drift probe, components/controlplane/drift.ts), where @pulumi/command
 * cannot be called. Same connection fields as {@link SshConnection}; the keys go to 0600 files in a
 * private temporary directory removed afterwards, never on a command line or in a message.
 * Self-contained on purpose: the engine serializes these functions into the provider.
 */
import { spawn } from "child_process";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";

/** Where to run: the fields of an SSH connection with the keys in plain text (inside the provider only). */
export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly privateKey: string;
  readonly hostKey?: string;
  readonly proxy?: Omit<SshTarget, "proxy">;
}

// a local binding exported by name, for the drift provider's code (see lib/kube/rest.ts)
/** Seconds to wait for the TCP connection and the SSH handshake of one attempt. */
const SSH_CONNECT_TIMEOUT_SECONDS = 15;
/**
 * `ssh` options for one hop: its key, and its host key pinned (`StrictHostKeyChecking=yes` against a
 * known_hosts file holding only that key) or, without `hostKey`, accepted as @pulumi/command does.
 */
export function sshHopOptions(
  hop: Omit<SshTarget, "proxy">,
  keyFile: string,
  knownHostsFile: string,
): string[] {
  return [
    "-i",
    keyFile,
    "-p",
    String(hop.port),
    "-o",
    "BatchMode=yes",
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    `ConnectTimeout=${SSH_CONNECT_TIMEOUT_SECONDS}`,
    "-o",
    "LogLevel=ERROR",
    "-o",
    `StrictHostKeyChecking=${hop.hostKey ? "yes" : "no"}`,
    "-o",
    `UserKnownHostsFile=${hop.hostKey ? knownHostsFile : "/dev/null"}`,
  ];
}

/** A known_hosts line pinning `hop`'s key (`[addr]:port` unless the port is 22). */
export function knownHostsLine(hop: Omit<SshTarget, "proxy">): string {
  const name = hop.port === 22 ? hop.host : `[${hop.host}]:${hop.port}`;
  return `${name} ${hop.hostKey}\n`;
}

const singleQuoted = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `script` with bash on `target` (sent on stdin, so nothing of it shows in a process list) and
 * returns its stdout. Fails with the exit code and the last lines of stderr.
 */
export async function runScriptOverSsh(
  target: SshTarget,
  script: string,
  timeoutMs: number,
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "pulumi-karmada-ssh-"));
  try {
    const write = (file: string, content: string) => {
      const path = join(dir, file);
      writeFileSync(path, content.endsWith("\n") ? content : `${content}\n`, { mode: 0o600 });
      return path;
    };
    const args = sshHopOptions(
      target,
      write("key", target.privateKey),
      write("known_hosts", target.hostKey ? knownHostsLine(target) : ""),
    );
    if (target.proxy !== undefined) {
      const proxy = target.proxy;
      const hop = sshHopOptions(
        proxy,
        write("proxy-key", proxy.privateKey),
        write("proxy-known_hosts", proxy.hostKey ? knownHostsLine(proxy) : ""),
      );
      const proxyCommand = ["ssh", ...hop, "-W", "%h:%p", `${proxy.user}@${proxy.host}`]
        .map(singleQuoted)
        .join(" ");
      args.push("-o", `ProxyCommand=${proxyCommand}`);
    }
    args.push(`${target.user}@${target.host}`, "bash -s");
    return await new Promise<string>((resolve, reject) => {
      const child = spawn("ssh", args, { stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", (err) => {
        clearTimeout(timer);
        reject(
          new Error(`cannot run ssh (the OpenSSH client is needed for host drift checks): ${err.message}`),
        );
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        if (code === 0) return resolve(stdout);
        const why = signal ? `killed after ${timeoutMs / 1000}s` : `exit ${code}`;
        const tail = stderr.trim().split("\n").slice(-5).join("\n");
        reject(new Error(`${target.user}@${target.host}:${target.port}: script failed (${why}): ${tail}`));
      });
      child.stdin.end(script);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
