import { spawn } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { remoteInvocation } from "../../lib/hosts/script";
import { ResolvedHost } from "../../lib/hosts/spec";

/** Output of one SSH session (or local process). */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Runs scripts on test hosts over real SSH the way `@pulumi/command` runs a remote command: key
 * authentication, the pinned host key checked, the script handed to bash (see `remoteInvocation`),
 * stdin fed in. Keys and known_hosts files live in a private temporary directory.
 */
export class SshRunner {
  private readonly keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-ssh-"));

  /** Runs `script` on `host` with `stdin`; resolves with its exit code and output (10 minutes at most). */
  async run(host: ResolvedHost, script: string, stdin: string): Promise<RunResult> {
    const keyPath = path.join(this.keyDir, `${sha(String(host.privateKey)).slice(0, 16)}.key`);
    if (!fs.existsSync(keyPath)) fs.writeFileSync(keyPath, String(host.privateKey), { mode: 0o600 });
    const knownHosts = path.join(this.keyDir, `${host.name}.known_hosts`);
    fs.writeFileSync(knownHosts, host.hostKey ? `[${host.address}]:${host.port} ${host.hostKey}\n` : "");
    const args = [
      ...["-i", keyPath, "-p", String(host.port)],
      ...[
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "BatchMode=yes",
        "-o",
        "ConnectTimeout=5",
        "-o",
        "LogLevel=ERROR",
      ],
      ...[
        "-o",
        `UserKnownHostsFile=${knownHosts}`,
        "-o",
        `StrictHostKeyChecking=${host.hostKey ? "yes" : "no"}`,
      ],
      `${host.user}@${host.address}`,
      remoteInvocation(script),
    ];
    return runProcess("ssh", args, stdin, 600_000);
  }

  /** Removes the keys this runner wrote. */
  close(): void {
    fs.rmSync(this.keyDir, { recursive: true, force: true });
  }
}

/** Runs a local process with stdin, collecting output; kills it after `timeoutMs`. */
export function runProcess(
  command: string,
  args: string[],
  stdin: string,
  timeoutMs: number,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
  });
}
