import { ChildProcess, execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";

/** One loopback "host": its own sshd on 127.0.X.N and its own filesystem root. */
export interface TestHost {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  /** Directory every path of our scripts on this host is relative to. */
  readonly root: string;
  /** OpenSSH public host key line (`ssh-ed25519 AAAA…`), for pinning. */
  readonly hostKey: string;
}

/** A set of loopback hosts reached over real SSH. */
export interface TestBed {
  readonly dir: string;
  readonly hosts: TestHost[];
  /** The private key every host accepts (a throw-away test key). */
  readonly clientKey: string;
  readonly clientKeyPath: string;
  readonly knownHostsPath: string;
  /** Starts the sshd of a host prepared with `startSshd: false` (or stopped). */
  startSshd(name: string): Promise<void>;
  stopSshd(name: string): void;
  /**
   * Kills every process our scripts started under the host roots (pid files), then the sshds, and
   * removes the test bed's directory (kept when PK_KEEP_TESTBED is set).
   */
  stop(): Promise<void>;
}

const SSHD = "/usr/sbin/sshd";

function ensureSshd(): void {
  if (!fs.existsSync(SSHD)) {
    execFileSync("apt-get", ["install", "-y", "-qq", "openssh-server"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  }
  fs.mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
}

/** Whether `address:port` accepts a TCP connection now. */
export function portOpen(address: string, port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: address, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** Resolves once `address:port` accepts TCP connections. */
export async function waitForPort(address: string, port: number, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await portOpen(address, port))) {
    if (Date.now() > deadline) throw new Error(`${address}:${port} did not open within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pinnable public host key (`ssh-ed25519 AAAA…`, no comment) of the loopback host whose files are in `dir`. */
export function pinnedHostKey(dir: string): string {
  return fs
    .readFileSync(path.join(dir, "ssh_host_ed25519_key.pub"), "utf8")
    .trim()
    .split(" ")
    .slice(0, 2)
    .join(" ");
}

/**
 * sshd settings of a loopback host whose key files and pid file are in `dir` and whose filesystem root is
 * `dir/root`. Sessions get the host's own `/root` as HOME: a separate machine does not run this machine's
 * `~/.bashrc` (bash sources it for every command sshd runs — here pyenv's set-up, ≈ 0.1 s of CPU per
 * session, which no real host's session pays).
 */
function sshdConfig(dir: string, address: string, port: number): string {
  return [
    `SetEnv HOME=${dir}/root/root`,
    `ListenAddress ${address}`,
    `Port ${port}`,
    `HostKey ${dir}/ssh_host_ed25519_key`,
    `PidFile ${dir}/sshd.pid`,
    `AuthorizedKeysFile ${dir}/authorized_keys`,
    "PermitRootLogin prohibit-password",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "UsePAM no",
    "StrictModes no",
    "PrintMotd no",
    "MaxSessions 50",
    "MaxStartups 100",
    "Subsystem sftp internal-sftp",
    "",
  ].join("\n");
}

/** Options of {@link startTestBed}. */
export interface TestBedOptions {
  /** Host addresses are `${prefix}${firstHost + i}`, e.g. prefix `127.0.1.` gives 127.0.1.2, 127.0.1.3, … */
  readonly prefix: string;
  readonly count: number;
  /** Last octet of the first host's address. @default 2 */
  readonly firstHost?: number;
  /**
   * A launcher the sshds (and so every process their sessions start) run through: a lab place's
   * (devkit/lab `labPlace`, its `enter.sh`), so that the hosts live in the lab's network, with their
   * addresses already there (`addLabAddress`), pods reach them, and the lab's teardown stops them too.
   * @default - none: this machine's namespace, loopback addresses
   */
  readonly launcher?: string;
  /** @default 2222 */
  readonly port?: number;
  /** Hosts (by index) whose sshd is not started: "unreachable" until `startSshd`. */
  readonly withoutSshd?: number[];
}

/** Starts `count` loopback hosts with real sshds, a throw-away client key and a known_hosts file. */
export async function startTestBed(options: TestBedOptions): Promise<TestBed> {
  ensureSshd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-hosts-"));
  const port = options.port ?? 2222;
  const clientKeyPath = path.join(dir, "client_key");
  execFileSync("ssh-keygen", [
    "-q",
    "-t",
    "ed25519",
    "-N",
    "",
    "-C",
    "pulumi-karmada-test",
    "-f",
    clientKeyPath,
  ]);
  const clientPub = fs.readFileSync(`${clientKeyPath}.pub`, "utf8");
  const sshds = new Map<string, ChildProcess>();
  const hosts: TestHost[] = [];
  const known: string[] = [];
  for (let i = 0; i < options.count; i++) {
    const name = `m${i + 1}`;
    const address = `${options.prefix}${(options.firstHost ?? 2) + i}`;
    const hostDir = path.join(dir, name);
    const root = path.join(hostDir, "root");
    fs.mkdirSync(path.join(root, "root"), { recursive: true }); // the root and its /root, the sessions' HOME
    generateHostKey(hostDir);
    fs.writeFileSync(path.join(hostDir, "authorized_keys"), clientPub, { mode: 0o600 });
    fs.writeFileSync(path.join(hostDir, "sshd_config"), sshdConfig(hostDir, address, port));
    const hostKey = pinnedHostKey(hostDir);
    known.push(`[${address}]:${port} ${hostKey}`);
    hosts.push({ name, address, port, root, hostKey });
  }
  const knownHostsPath = path.join(dir, "known_hosts");
  fs.writeFileSync(knownHostsPath, `${known.join("\n")}\n`);
  const hostDirOf = (name: string) => path.join(dir, name);
  const bed: TestBed = {
    dir,
    hosts,
    clientKey: fs.readFileSync(clientKeyPath, "utf8"),
    clientKeyPath,
    knownHostsPath,
    async startSshd(name: string) {
      const host = hosts.find((h) => h.name === name)!;
      // An sshd already there (another run on the same addresses) would answer in ours' place.
      if (await portOpen(host.address, host.port))
        throw new Error(
          `${host.address}:${host.port} is already in use: is another test bed on ${options.prefix}x running?`,
        );
      const sshd = [SSHD, "-D", "-e", "-f", path.join(hostDirOf(name), "sshd_config")];
      const [command, ...args] = options.launcher ? [options.launcher, ...sshd] : sshd;
      const child = spawn(command, args, {
        stdio: ["ignore", "ignore", fs.openSync(path.join(hostDirOf(name), "sshd.log"), "a")],
      });
      sshds.set(name, child);
      await waitForPort(host.address, host.port);
    },
    stopSshd(name: string) {
      sshds.get(name)?.kill("SIGTERM");
      sshds.delete(name);
    },
    async stop() {
      for (const host of hosts) killScriptProcesses(host.root);
      for (const name of [...sshds.keys()]) bed.stopSshd(name);
      // Keep the hosts' files for a post-mortem only when asked.
      if (!process.env.PK_KEEP_TESTBED) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (let i = 0; i < hosts.length; i++) {
      if (!options.withoutSshd?.includes(i)) await bed.startSshd(hosts[i].name);
    }
  } catch (e) {
    await bed.stop(); // the sshds already started would outlive the failed start
    throw e;
  }
  return bed;
}

/** Kills the supervisors and children recorded in pid files under a host root (only ours). */
export function killScriptProcesses(root: string): void {
  const runDir = path.join(root, "run", "pulumi-karmada");
  if (!fs.existsSync(runDir)) return;
  for (const service of fs.readdirSync(runDir)) {
    for (const file of ["supervisor.pid", "child.pid"]) {
      const pidFile = path.join(runDir, service, file);
      if (!fs.existsSync(pidFile)) continue;
      const pid = Number(fs.readFileSync(pidFile, "utf8").trim());
      if (Number.isInteger(pid) && pid > 1) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  }
}

/** Writes a new ed25519 host key pair `ssh_host_ed25519_key[.pub]` into `dir`. */
export function generateHostKey(dir: string): void {
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(dir, "ssh_host_ed25519_key")]);
}
