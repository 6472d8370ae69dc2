import { spawn } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { EtcdHostsPlan, PlannedCommand } from "../../../lib/etcd/hosts/plan";
import { remoteInvocation, MESSAGE_PREFIX } from "../../../lib/hosts/script";
import { hostPort, ResolvedHost } from "../../../lib/hosts/spec";
import { explainSshFailure } from "../../../lib/hosts/sshErrors";

/** Output of one SSH session. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A command that failed: `message` is the `pulumi-karmada: <host>: <step>: <reason>` line. */
export class DeployError extends Error {
  constructor(
    public readonly commandId: string,
    message: string,
    public readonly result: RunResult,
  ) {
    super(message);
    this.name = "DeployError";
  }
}

interface Applied {
  readonly fingerprint: string;
  readonly host: ResolvedHost;
  readonly delete?: string;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Runs a plan the way the Pulumi engine runs the component's commands: in dependency order, a command
 * only when it is new or its script / stdin / connection changed, stopping at the first failure; after a
 * successful pass, deletes (runs `delete` of) commands no longer in the plan, in reverse order, with the
 * connection and script they were created with. Keeps that state across `apply` calls like a stack.
 */
export class PlanDriver {
  private readonly state = new Map<string, Applied>();
  /** Milliseconds each command took, by id, for the last run of it. */
  readonly timings = new Map<string, number>();
  private readonly keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-driver-"));

  constructor(
    /** Stdin for commands that take one (the member's certificate bundle). */
    private readonly stdinFor: (command: PlannedCommand) => string,
  ) {}

  /** Called after each command that ran (e.g. to check quorum between membership steps). */
  afterCommand?: (id: string) => Promise<void>;

  /** Applies `plan` for `members`; returns the ids that ran and the ids deleted. */
  async apply(
    members: readonly ResolvedHost[],
    plan: EtcdHostsPlan,
  ): Promise<{ ran: string[]; deleted: string[] }> {
    const byName = new Map(members.map((m) => [m.name, m]));
    const ran: string[] = [];
    for (const command of plan.commands) {
      const host = byName.get(command.host)!;
      const stdin = command.stdin ? this.stdinFor(command) : "";
      const fingerprint = sha(
        [command.create, sha(stdin), host.address, host.port, host.user, sha(String(host.privateKey))].join(
          "\0",
        ),
      );
      if (this.state.get(command.id)?.fingerprint === fingerprint) continue;
      const started = Date.now();
      const result = await this.run(host, command.create, stdin);
      this.timings.set(command.id, Date.now() - started);
      if (process.env.PK_DRIVER_TRACE)
        console.log(`${command.id}: ${Date.now() - started} ms, exit ${result.code}`);
      if (result.code !== 0)
        throw new DeployError(command.id, failureMessage(host, command.id, result), result);
      this.state.set(command.id, { fingerprint, host, delete: command.delete });
      ran.push(command.id);
      await this.afterCommand?.(command.id);
    }
    const wanted = new Set(plan.commands.map((c) => c.id));
    const deleted = await this.deleteWhere((id) => !wanted.has(id));
    return { ran, deleted };
  }

  /** Deletes every command (like `pulumi destroy`). */
  async destroy(): Promise<string[]> {
    return this.deleteWhere(() => true);
  }

  /** Ids currently recorded as applied. */
  appliedIds(): string[] {
    return [...this.state.keys()];
  }

  private async deleteWhere(pick: (id: string) => boolean): Promise<string[]> {
    const ids = [...this.state.keys()].filter(pick).reverse();
    for (const id of ids) {
      const applied = this.state.get(id)!;
      if (applied.delete) {
        const result = await this.run(applied.host, applied.delete, "");
        if (result.code !== 0)
          throw new DeployError(`${id} (delete)`, failureMessage(applied.host, id, result), result);
      }
      this.state.delete(id);
    }
    return ids;
  }

  /** Runs a script on a host over real SSH, as `@pulumi/command` would: key auth, pinned host key. */
  async run(host: ResolvedHost, script: string, stdin: string): Promise<RunResult> {
    const keyPath = path.join(this.keyDir, `${sha(String(host.privateKey)).slice(0, 16)}.key`);
    if (!fs.existsSync(keyPath)) fs.writeFileSync(keyPath, String(host.privateKey), { mode: 0o600 });
    const knownHosts = path.join(this.keyDir, `${host.name}.known_hosts`);
    fs.writeFileSync(knownHosts, host.hostKey ? `[${host.address}]:${host.port} ${host.hostKey}\n` : "");
    const args = [
      "-i",
      keyPath,
      "-p",
      String(host.port),
      "-o",
      "IdentitiesOnly=yes",
      "-o",
      "BatchMode=yes",
      "-o",
      "ConnectTimeout=5",
      "-o",
      "LogLevel=ERROR",
      "-o",
      `UserKnownHostsFile=${knownHosts}`,
      "-o",
      `StrictHostKeyChecking=${host.hostKey ? "yes" : "no"}`,
      `${host.user}@${host.address}`,
      remoteInvocation(script),
    ];
    return runProcess("ssh", args, stdin, 600_000);
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

/** The script's own `pulumi-karmada: host: step: reason` line, else an explained SSH failure. */
export function failureMessage(host: ResolvedHost, id: string, result: RunResult): string {
  const own = result.stderr.split("\n").find((line) => line.startsWith(`${MESSAGE_PREFIX}: `));
  if (own) return own;
  const step = id.startsWith(`${host.name}-`) ? id.slice(host.name.length + 1) : id;
  return explainSshFailure(host.name, hostPort(host.address, host.port), step, result.stderr);
}
