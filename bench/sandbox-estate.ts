/**
 * TEST BED ONLY: the whole sandbox on loopback addresses — five SSH "hosts" (three etcd, two control
 * plane), a TCP forwarder as the VIP, an artifact mirror, three member clusters — and a stack of the
 * sandbox program run by the real Pulumi engine (Automation API, file backend, test-bed plugins).
 */
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { createEngineEnv, EngineEnv } from "../test/support/engine/env";
import { TESTBED_DIR } from "../test/support/tier";
import { startTestBed, TestBed } from "../test/support/hosts/testbed";
import { REPO_ROOT, requireBinary } from "../test/support/kube/binaries";
import { crdSourceForTests } from "../test/support/engine/estateFixture";
import { LoopbackCluster, startCluster } from "../test/support/kube/cluster";
import { startMirror, SandboxMirror } from "./sandbox-mirror";
import { SandboxDescription, SandboxMember, SandboxVariant } from "./sandbox-program";
import { startTcpVip, TcpVip } from "./sandbox-vip";

/** Addresses: hosts 127.0.6.2–6, members 127.0.6.20–22, VIP 127.0.6.100. */
export const SANDBOX_PREFIX = "127.0.6.";
export const SANDBOX_VIP = `${SANDBOX_PREFIX}100`;
const MEMBERS: readonly { name: string; mode: "Push" | "Pull"; address: string }[] = [
  { name: "member1", mode: "Push", address: `${SANDBOX_PREFIX}20` },
  { name: "member2", mode: "Push", address: `${SANDBOX_PREFIX}21` },
  { name: "member3", mode: "Pull", address: `${SANDBOX_PREFIX}22` },
];

/** Test-bed binaries the sandbox needs (each its own tarball on the mirror). */
const KUBE_BINARIES = ["kube-apiserver", "kube-controller-manager"];
const KARMADA_BINARIES = [
  "karmada-aggregated-apiserver",
  "karmada-controller-manager",
  "karmada-scheduler",
  "karmada-webhook",
];

/** A running sandbox. */
export interface Sandbox {
  readonly dir: string;
  readonly bed: TestBed;
  readonly vip: TcpVip;
  readonly mirror: SandboxMirror;
  readonly members: readonly (LoopbackCluster & { readonly mode: "Push" | "Pull" })[];
  readonly engine: EngineEnv;
  readonly description: SandboxDescription;
  /** The stack, running the sandbox program with `variant`. */
  stack(variant?: SandboxVariant): Promise<Stack>;
  /** Stops everything the sandbox started (processes on the hosts included) and removes its files. */
  stop(): Promise<void>;
}

/** Directory holding `binary` (test bed first, then PATH: see test/support/kube/binaries.ts). */
const binDir = (binary: string): string => path.dirname(requireBinary(binary));

/** The version a binary reports: `etcd --version` (`etcd Version: 3.5.21`) or Karmada's `version`. */
function reportedVersion(binary: string, pattern: RegExp, args: string[]): string {
  const out = execFileSync(requireBinary(binary), args, { encoding: "utf8" });
  const match = pattern.exec(out);
  if (!match) throw new Error(`cannot read the version of ${binary} from: ${out.slice(0, 200)}`);
  return match[1];
}

/** Starts the sandbox's processes (not the stack). */
export async function startSandbox(): Promise<Sandbox> {
  const engine = createEngineEnv("pk-sandbox-");
  const dir = engine.dir;
  const cleanups: (() => Promise<void> | void)[] = [() => engine.cleanup()];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch((e) => console.error(e));
  };
  try {
    const bed = await startTestBed({ prefix: SANDBOX_PREFIX, count: 5 });
    cleanups.push(() => bed.stop());
    const cacheDir = path.join(path.dirname(TESTBED_DIR), "sandbox-mirror");
    const mirror = await startMirror(cacheDir, {
      etcd: { dir: binDir("etcd"), files: ["etcd", "etcdctl", "etcdutl"] },
      ...Object.fromEntries(
        [...KUBE_BINARIES, ...KARMADA_BINARIES].map((b) => [b, { dir: binDir(b), files: [b] }]),
      ),
    });
    cleanups.push(() => mirror.server.close());
    const [cp1, cp2] = bed.hosts.slice(3);
    const vip = await startTcpVip(
      SANDBOX_VIP,
      [cp1.address, cp2.address],
      [
        { listenPort: 5443, targetPort: 5443 },
        { listenPort: 443, targetPort: 7443 },
        { listenPort: 8443, targetPort: 8443 },
      ],
    );
    cleanups.push(() => vip.close());
    const started = await Promise.allSettled(
      MEMBERS.map((m) => startCluster({ name: m.name, address: m.address, dir: path.join(dir, m.name) })),
    );
    for (const s of started) if (s.status === "fulfilled") cleanups.push(() => s.value.stop());
    const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    const members = started.map((s, i) => ({
      ...(s as PromiseFulfilledResult<LoopbackCluster>).value,
      mode: MEMBERS[i].mode,
    }));
    const sandboxHost = (h: (typeof bed.hosts)[number], name: string) => ({
      name,
      address: h.address,
      port: h.port,
      root: h.root,
    });
    const description: SandboxDescription = {
      etcdHosts: bed.hosts.slice(0, 3).map((h, i) => sandboxHost(h, `etcd${i + 1}`)),
      controlPlaneHosts: [sandboxHost(cp1, "cp1"), sandboxHost(cp2, "cp2")],
      sshKey: bed.clientKey,
      vip: SANDBOX_VIP,
      artifacts: mirror.artifacts,
      etcdVersion: `v${reportedVersion("etcd", /etcd Version: (\S+)/, ["--version"])}`,
      crds: crdSourceForTests().path,
      members: members.map((m): SandboxMember => ({
        name: m.name,
        mode: m.mode,
        server: m.server,
        kubeconfig: m.kubeconfig,
      })),
    };
    const project = sandboxProject(dir, description);
    const workspace = async (variant: SandboxVariant = {}) => {
      const stack = await LocalWorkspace.createOrSelectStack(
        { stackName: "sandbox", workDir: project.dir },
        {
          envVars: { ...engine.env, ...project.env(variant) },
          pulumiCommand: await engine.pulumiCommand(),
          secretsProvider: "passphrase",
        },
      );
      await stack.setConfig("pulumi:disable-default-providers[0]", { value: "kubernetes" }, true);
      return stack;
    };
    return { dir, bed, vip, mirror, members, engine, description, stack: workspace, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Entries of the repository the sandbox project links to: the program and what it runs with. */
const LINKED = ["bench", "node_modules", "package.json", "tsconfig.json"] as const;

/**
 * A Pulumi project directory for the sandbox program (bench/sandbox-main.ts), run by the CLI's own
 * Node.js language host: Pulumi.yaml, links to the repository, and the description as a file (it
 * holds the test bed's throw-away SSH key: mode 0600). `env(variant)` is what the program reads.
 */
function sandboxProject(
  dir: string,
  description: SandboxDescription,
): { dir: string; env: (variant: SandboxVariant) => Record<string, string> } {
  const projectDir = path.join(dir, "project");
  fs.mkdirSync(projectDir, { recursive: true });
  fs.writeFileSync(
    path.join(projectDir, "Pulumi.yaml"),
    [
      "name: pulumi-karmada-sandbox",
      "runtime:",
      "  name: nodejs",
      "  options:",
      "    typescript: true",
      "main: bench/sandbox-main.ts",
      "",
    ].join("\n"),
  );
  for (const entry of LINKED) {
    fs.rmSync(path.join(projectDir, entry), { force: true });
    fs.symlinkSync(path.join(REPO_ROOT, entry), path.join(projectDir, entry));
  }
  const descriptionFile = path.join(dir, "sandbox-description.json");
  fs.writeFileSync(descriptionFile, JSON.stringify(description), { mode: 0o600 });
  return {
    dir: projectDir,
    env: (variant) => ({
      PK_SANDBOX_DESCRIPTION: descriptionFile,
      PK_SANDBOX_VARIANT: JSON.stringify(variant),
    }),
  };
}

/**
 * TEST BED ONLY: karmada-agent for a pull-mode member, run as a process with the flags of the
 * Deployment our registration created (pods never run in the loopback clusters): its Karmada
 * kubeconfig from the Secret the registration wrote, the member's admin kubeconfig for in-cluster
 * access, and listeners on the member's loopback address.
 */
export function agentArgs(
  deploymentCommand: readonly string[],
  files: { karmadaKubeconfig: string; memberKubeconfig: string },
  address: string,
): string[] {
  const flags = deploymentCommand.filter((arg) => arg.startsWith("--"));
  const replaced: Record<string, string> = {
    "karmada-kubeconfig": files.karmadaKubeconfig,
    "metrics-bind-address": `${address}:18080`,
    "health-probe-bind-address": `${address}:18357`,
  };
  const kept = flags.filter((f) => !(f.slice(2).split("=")[0] in replaced));
  return [
    ...kept,
    ...Object.entries(replaced).map(([k, v]) => `--${k}=${v}`),
    `--kubeconfig=${files.memberKubeconfig}`,
  ];
}

/** The karmada-agent binary of the test bed. */
export const agentBinary = (): string => requireBinary("karmada-agent");

/**
 * TEST BED ONLY: a stand-in for a newer karmada-scheduler release in `<root>/opt/karmada-<version>`
 * of each control-plane host — the test bed builds one Karmada release, so this is that binary with its
 * embedded version string rewritten (same length, same code). Returns the path (relative to the roots).
 */
export function stageSchedulerVersion(sandbox: Sandbox, version: string): string {
  const bin = binDir("karmada-scheduler");
  const built = reportedVersion("karmada-scheduler", /GitVersion:"([^"]+)"/, ["version"]);
  if (built.length !== version.length) throw new Error(`${version} must be as long as ${built}`);
  const bytes = fs.readFileSync(path.join(bin, "karmada-scheduler"));
  // the -X ldflags string stands alone, between NUL bytes (module paths carry it after an "@")
  const needle = Buffer.from(`\0${built}\0`, "latin1");
  const at = bytes.indexOf(needle);
  if (at < 0 || bytes.indexOf(needle, at + 1) >= 0)
    throw new Error(`expected one version string ${built} in karmada-scheduler`);
  Buffer.from(`\0${version}\0`, "latin1").copy(bytes, at);
  const relative = `/opt/karmada-${version}`;
  for (const host of sandbox.description.controlPlaneHosts) {
    const dir = path.join(host.root, relative);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "karmada-scheduler"), bytes, { mode: 0o755 });
  }
  return relative;
}

/** A temporary file with `content`, mode 0600. */
export function secretFile(dir: string, name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content, { mode: 0o600 });
  return file;
}
