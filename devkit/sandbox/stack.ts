/**
 * The local estate's stack: the repository's stacks/ program, stack `local`, in a project copy under the
 * sandbox directory (the CLI writes `Pulumi.local.yaml` next to Pulumi.yaml, and it must not write into the
 * repository), run as JavaScript transpiled from the sources (devkit/sandbox/program.ts). The settings
 * are the repository's Pulumi.local.yaml plus what only this machine knows, taken from the running bed:
 * the machines' pinned host keys, the mirror's URLs and sha256, the test bed's etcd version and CRD
 * bundle, and the secrets (SSH key, member kubeconfigs).
 */
import { execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { parse, stringify } from "yaml";
import { engineEnvironment } from "../engine/env";
import { mirrorStacksProject } from "../engine/project";
import { REPO_ROOT, findBinary, testbedEnv } from "../testbed";
import { Bed, LOCAL_STACK_FILE } from "./bed";
import { projectFileForJavaScript, transpileStacksProgram } from "./program";

/** The stack's name (its settings file is Pulumi.local.yaml). */
export const LOCAL_STACK = "local";

/**
 * Steps the engine runs at once (`--parallel`) on the local estate. Its default, 4 per CPU, is sized for
 * work done on this machine; most of the estate's steps wait on its hosts (installs, services becoming
 * healthy) and would queue behind each other on a small machine.
 */
export const LOCAL_PARALLEL = 64;

/** Options of every Automation API `up`, `preview` and `destroy` of the local estate. */
export const LOCAL_RUN_OPTIONS = { parallel: LOCAL_PARALLEL } as const;

/** How much of a command's output {@link LocalStack.runWithin} keeps. */
const OUTPUT_KEPT = 256 * 1024;

/**
 * What the engine reports for a host step whose SSH session dropped before its exit status arrived (rare,
 * under load; docs/hosts.md "sshd under parallel steps"): every host script is safe to re-run.
 */
export const SSH_SESSION_DROPPED =
  /remote command exited without exit status or exit signal|error: EOF: running "/;

/** Where the project copy holds the transpiled program. */
const PROGRAM_DIR = "program";

/** Passphrase of the local stack's secrets: protects a throw-away local state only. */
const LOCAL_PASSPHRASE = "pulumi-karmada-local-estate";

/** Control-plane component (config key) → its tarball on the mirror. */
const COMPONENT_TARBALLS: Readonly<Record<string, string>> = {
  apiServer: "kube-apiserver",
  kubeControllerManager: "kube-controller-manager",
  aggregatedApiServer: "karmada-aggregated-apiserver",
  controllerManager: "karmada-controller-manager",
  scheduler: "karmada-scheduler",
  webhook: "karmada-webhook",
};

/** A prepared stack: where it is and how to run the CLI on it. */
export interface LocalStack {
  /** The project copy (Pulumi.yaml, links to the program, the stack's settings file). */
  readonly workDir: string;
  /** Environment of every pulumi command: test-bed engine, file backend under the sandbox dir, passphrase. */
  readonly env: Readonly<Record<string, string>>;
  /** The pulumi CLI. */
  readonly pulumi: string;
  /** Runs `pulumi <args>` in the project (output inherited), throwing on failure. */
  run(args: readonly string[], options?: { readonly input?: string; readonly quiet?: boolean }): string;
  /**
   * Runs `pulumi <args>` for at most `timeoutMs` (then the CLI and every plugin it started are stopped:
   * SIGTERM, SIGKILL 15 s later). Its output goes to this process's and is kept (the last 256 KiB): the
   * result, or the rejection's `output`.
   */
  runWithin(args: readonly string[], timeoutMs: number): Promise<string>;
}

/**
 * What of a bed the stack's settings need: each machine's pinned host key, the SSH key, the mirror, the
 * test bed's etcd version and CRD bundle, the members' kubeconfigs (a running bed, or the diagrams'
 * placeholder).
 */
export type StackBed = Pick<Bed, "sshKeyPath" | "artifacts" | "etcdVersion" | "crds" | "previousRelease"> & {
  readonly etcdHosts: readonly PinnedHost[];
  readonly controlPlaneHosts: readonly PinnedHost[];
  readonly members: readonly {
    readonly clusterName: string;
    readonly apiEndpoint: string;
    readonly kubeconfigPath: string;
  }[];
};

/** A machine by name with its pinned SSH host key. */
interface PinnedHost {
  readonly name: string;
  readonly hostKey: string;
}

/** Each host of `list` with its machine-specific settings from the bed. */
function placed(list: Record<string, unknown>[], hosts: readonly PinnedHost[]): Record<string, unknown>[] {
  return list.map((h) => {
    const host = hosts.find((b) => b.name === h.name);
    if (!host) throw new Error(`host ${String(h.name)} of ${LOCAL_STACK_FILE} is not in the bed`);
    return { ...h, hostKey: host.hostKey };
  });
}

/** A change to the stack's settings (e.g. a component upgrade), applied to the `config:` map in place. */
export type SettingsEdit = (config: Record<string, any>) => void;

/**
 * The estate at the previous release the bed carries (the version-upgrade drill installs it, then drops
 * this edit): its Karmada version (kube follows the catalog's pairing), every component's binaries from the
 * mirror, its CRD bundle.
 */
export function atPreviousRelease(bed: StackBed): SettingsEdit {
  const previous = bed.previousRelease;
  if (!previous)
    throw new Error(
      "the previous release is not built: run scripts/testbed/build.sh karmada-previous kube-previous",
    );
  return (config) => {
    const cp = config["karmada:controlPlane"];
    cp.karmadaVersion = previous.karmadaVersion;
    cp.hosts.components = Object.fromEntries(
      Object.entries(COMPONENT_TARBALLS).map(([key, tarball]) => [
        key,
        { binaries: previous.artifacts[tarball] },
      ]),
    );
    config["karmada:crds"] = { kind: "path", path: previous.crds };
  };
}

/** The `config:` map of the stack: the repository's settings completed from `bed`, then `edit` applied. */
export function localStackConfig(
  bed: StackBed,
  edit: SettingsEdit = () => undefined,
): Record<string, unknown> {
  const config = parse(fs.readFileSync(LOCAL_STACK_FILE, "utf8")).config as Record<string, any>;
  const etcd = config["karmada:etcd"];
  etcd.hosts = {
    ...etcd.hosts,
    version: bed.etcdVersion,
    artifact: bed.artifacts.etcd,
  };
  const cp = config["karmada:controlPlane"];
  cp.hosts = {
    ...cp.hosts,
    components: Object.fromEntries(
      Object.entries(COMPONENT_TARBALLS).map(([key, tarball]) => [key, { binaries: bed.artifacts[tarball] }]),
    ),
  };
  config["karmada:crds"] = { kind: "path", path: bed.crds };
  edit(config);
  // after the edit, which may list other machines (e.g. one replacing a lost machine)
  etcd.hosts.hosts = placed(etcd.hosts.hosts, bed.etcdHosts);
  cp.hosts.machines = placed(cp.hosts.machines, bed.controlPlaneHosts);
  return config;
}

/** The engine environment of the sandbox in `dir`: the test bed's CLI and plugins, or a usual install. */
function sandboxEngineEnv(dir: string, passphrase: string): Record<string, string> {
  const base = testbedEnv().env;
  const env = engineEnvironment(base, `file://${path.join(dir, "state")}`);
  env.PULUMI_CONFIG_PASSPHRASE = process.env.PULUMI_CONFIG_PASSPHRASE ?? passphrase;
  // a Pulumi installed the usual way fetches its plugins itself; the test bed's are installed offline
  if (!base.PULUMI_HOME) delete env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
  if (base.HOME) env.HOME = base.HOME;
  return env;
}

/** What a sandbox stack is made of. */
export interface SandboxStackSpec {
  /** The stack's name; its settings file in the project copy is `Pulumi.<name>.yaml`. */
  readonly name: string;
  /** The repository file its settings come from (named in the copy's header). */
  readonly settingsSource: string;
  /** The `config:` map to write. */
  readonly config: Record<string, unknown>;
  /** Secrets to set, by config path (`karmada:memberKubeconfigs.member1` …) → value. */
  readonly secrets: Readonly<Record<string, string>>;
  /** Passphrase of the stack's secrets (throw-away local state). */
  readonly passphrase: string;
}

/**
 * Creates (or refreshes) the project copy in `<dir>/project` with the program transpiled (changed files
 * only), writes the stack's settings (the encryption salt of an existing stack kept), selects the stack
 * (created on first use) and sets its secrets.
 */
export function prepareSandboxStack(dir: string, spec: SandboxStackSpec): LocalStack {
  const workDir = mirrorStacksProject(path.join(dir, "project"));
  // the engine runs the program as JavaScript, as it runs the published package (devkit/sandbox/program.ts)
  const entry = transpileStacksProgram(path.join(workDir, PROGRAM_DIR));
  const projectFile = path.join(workDir, "Pulumi.yaml");
  fs.writeFileSync(
    projectFile,
    projectFileForJavaScript(fs.readFileSync(projectFile, "utf8"), `${PROGRAM_DIR}/${entry}`),
  );
  fs.mkdirSync(path.join(dir, "state"), { recursive: true });
  const env = sandboxEngineEnv(dir, spec.passphrase);
  const pulumi = findBinary("pulumi", env);
  if (!pulumi) throw new Error("no pulumi CLI: run scripts/testbed/build.sh engine (or install Pulumi)");
  const run: LocalStack["run"] = (args, options = {}) =>
    execFileSync(pulumi, ["--non-interactive", ...args], {
      cwd: workDir,
      env,
      encoding: "utf8",
      input: options.input,
      stdio: [options.input === undefined ? "ignore" : "pipe", options.quiet ? "pipe" : "inherit", "inherit"],
    }) ?? "";
  const runWithin: LocalStack["runWithin"] = (args, timeoutMs) =>
    new Promise((resolve, reject) => {
      // a process group of its own: the plugins the CLI started are stopped with it
      const child = spawn(pulumi, ["--non-interactive", ...args], {
        cwd: workDir,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      let output = "";
      const keep = (d: Buffer, to: NodeJS.WriteStream) => {
        to.write(d);
        output = (output + d.toString("utf8")).slice(-OUTPUT_KEPT);
      };
      child.stdout!.on("data", (d: Buffer) => keep(d, process.stdout));
      child.stderr!.on("data", (d: Buffer) => keep(d, process.stderr));
      const signal = (sig: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, sig);
        } catch {
          // gone already
        }
      };
      // Ctrl-C at the terminal reaches this process's group only: pass it on
      const forward = (sig: NodeJS.Signals) => signal(sig);
      process.on("SIGINT", forward);
      process.on("SIGTERM", forward);
      let timedOut = false;
      const term = setTimeout(() => {
        timedOut = true;
        signal("SIGTERM");
      }, timeoutMs);
      const kill = setTimeout(() => signal("SIGKILL"), timeoutMs + 15_000);
      const fail = (message: string) => reject(Object.assign(new Error(message), { output }));
      child.on("error", (e) => fail(e.message));
      child.on("close", (code, sig) => {
        clearTimeout(term);
        clearTimeout(kill);
        process.off("SIGINT", forward);
        process.off("SIGTERM", forward);
        if (timedOut) signal("SIGKILL"); // plugins the stopped CLI left behind
        if (timedOut) fail(`pulumi ${args[0]} did not finish within ${timeoutMs / 1000} s`);
        else if (code === 0) resolve(output);
        else fail(`pulumi ${args[0]} failed (${sig ?? `exit ${code}`})`);
      });
    });
  const settingsFile = path.join(workDir, `Pulumi.${spec.name}.yaml`);
  const salt = fs.existsSync(settingsFile)
    ? (parse(fs.readFileSync(settingsFile, "utf8"))?.encryptionsalt as string | undefined)
    : undefined;
  const header = `# Written by scripts/sandbox from ${path.relative(REPO_ROOT, spec.settingsSource)}; edit that file, not this one.\n`;
  fs.writeFileSync(
    settingsFile,
    header + stringify({ ...(salt ? { encryptionsalt: salt } : {}), config: spec.config }),
    { mode: 0o600 },
  );
  run(["stack", "select", "--create", "--secrets-provider", "passphrase", spec.name], { quiet: true });
  // on stdin, never as an argument: a command line is readable by every process (/proc/<pid>/cmdline)
  for (const [key, value] of Object.entries(spec.secrets)) {
    run(["config", "set", "--secret", "--path", key], { input: value, quiet: true });
  }
  return { workDir, env, pulumi, run, runWithin };
}

/**
 * Discards what a sandbox in `dir` recorded of the estate on its previous lab: the stack's state, its
 * settings file in the project copy (with the state's encryption salt) and `extra` files (e.g. the admin
 * kubeconfig). For a lab made anew: an `up` must never run against a world that lost its disks. Returns
 * whether there was a state to discard.
 */
export function discardSandboxState(dir: string, stackName: string, extra: readonly string[] = []): boolean {
  const state = path.join(dir, "state");
  const had = fs.existsSync(state) && fs.readdirSync(state).length > 0;
  for (const p of [state, path.join(dir, "project", `Pulumi.${stackName}.yaml`), ...extra])
    fs.rmSync(p, { recursive: true, force: true });
  return had;
}

/** The engine environment `npm start` runs pulumi with on the local estate in `dir` (state, passphrase). */
export function localEngineEnv(dir: string): Record<string, string> {
  return sandboxEngineEnv(dir, LOCAL_PASSPHRASE);
}

/** The local estate's stack for `bed` (settings from Pulumi.local.yaml, `edit` applied). */
export function prepareLocalStack(dir: string, bed: StackBed, edit?: SettingsEdit): LocalStack {
  const config = localStackConfig(bed, edit);
  return prepareSandboxStack(dir, {
    name: LOCAL_STACK,
    settingsSource: LOCAL_STACK_FILE,
    config,
    secrets: {
      "karmada:sshPrivateKey": fs.readFileSync(bed.sshKeyPath, "utf8"),
      ...memberKubeconfigSecrets(bed, (config["karmada:members"] ?? []) as readonly MemberEntry[]),
    },
    passphrase: LOCAL_PASSPHRASE,
  });
}

/** What a member entry of the settings says about where it is. */
type MemberEntry = { readonly clusterName: string; readonly apiEndpoint: string };

/**
 * The listed members' kubeconfig secrets, one per member API server: a bed member's own, under its name;
 * members an edit added on a bed member's API server (many Clusters on one server) use that entry
 * (stacks/config.ts `kubeconfigSource`) — a copy each would outgrow what the engine can pass to the program.
 */
function memberKubeconfigSecrets(
  bed: Pick<StackBed, "members">,
  members: readonly MemberEntry[],
): Record<string, string> {
  for (const m of members) {
    if (!bed.members.some((b) => b.clusterName === m.clusterName || b.apiEndpoint === m.apiEndpoint))
      throw new Error(`member ${m.clusterName}: no bed member serves ${m.apiEndpoint}`);
  }
  return Object.fromEntries(
    bed.members
      .filter((b) => members.some((m) => m.clusterName === b.clusterName))
      .map((b) => [`karmada:memberKubeconfigs.${b.clusterName}`, fs.readFileSync(b.kubeconfigPath, "utf8")]),
  );
}
