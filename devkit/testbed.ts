/**
 * Where the real binaries come from: the environment `scripts/testbed/env.sh` exports (test-bed bin dirs
 * in front of PATH, PULUMI_HOME with the provider plugins, offline Pulumi settings), looked up in that
 * environment's PATH — so a binary installed the usual way is found too when the test bed lacks it.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { BinaryFamily } from "../lib/controlplane/hosts/binaries";

/** Repository root (this file is devkit/testbed.ts). */
export const REPO_ROOT = path.resolve(__dirname, "..");

const ENV_SCRIPT = path.join(REPO_ROOT, "scripts", "testbed", "env.sh");

/** What {@link testbedEnv} found. */
export interface TestbedEnvironment {
  /** The full environment to run binaries with (process.env overlaid with what env.sh exports). */
  readonly env: Readonly<Record<string, string>>;
  /** Whether env.sh could be sourced; when false `env` is just process.env. */
  readonly sourced: boolean;
  /** Why env.sh could not be sourced, when it could not. */
  readonly problem?: string;
}

let cached: TestbedEnvironment | undefined;

/** This process's environment, without unset variables (what `spawn` and `execFile` take). */
export function currentEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/**
 * Sources scripts/testbed/env.sh in bash and returns the resulting environment (cached per process).
 * env.sh never fails on missing components, so a failure here means bash or the script is missing.
 */
export function testbedEnv(): TestbedEnvironment {
  if (cached) return cached;
  try {
    const out = execFileSync("bash", ["-c", '. "$1" >/dev/null 2>&1; env -0', "testbed-env", ENV_SCRIPT], {
      encoding: "utf8",
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const env: Record<string, string> = {};
    for (const entry of out.split("\0")) {
      const eq = entry.indexOf("=");
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    cached = { env, sourced: true };
  } catch (e) {
    cached = {
      env: currentEnv(),
      sourced: false,
      problem: `cannot source ${ENV_SCRIPT}: ${(e as Error).message}`,
    };
  }
  return cached;
}

/** First executable named `name` on the PATH of `env` (default: the test-bed environment), if any. */
export function findBinary(
  name: string,
  env: Readonly<Record<string, string>> = testbedEnv().env,
): string | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Like {@link findBinary}, but throws naming the binary and where it was looked for. */
export function requireBinary(
  name: string,
  env: Readonly<Record<string, string>> = testbedEnv().env,
): string {
  const found = findBinary(name, env);
  if (!found) {
    throw new Error(`${name} not found on the test-bed PATH (build it with scripts/testbed/build.sh)`);
  }
  return found;
}

/**
 * The version a control-plane binary reports, as the install script reads it
 * (lib/controlplane/hosts/binaries.ts, `reportedVersionCommand`): `kube-apiserver --version` prints
 * `Kubernetes v1.35.2`, a Karmada binary's `version` prints `version.Info{GitVersion:"v1.18.2", …}`.
 */
export function reportedVersion(file: string, family: BinaryFamily): string {
  const kube = family === "kubernetes";
  const out = execFileSync(file, [kube ? "--version" : "version"], { encoding: "utf8" });
  const found = kube ? /Kubernetes (v\S+)/.exec(out) : /GitVersion:"([^"]+)"/.exec(out);
  if (!found) throw new Error(`cannot read the version of ${file} from: ${out.slice(0, 200)}`);
  return found[1];
}

/** The KEY=value lines of a file of scripts/testbed/ that the shell sources too (comments skipped). */
export function testbedEnvFile(name: "versions.env" | "engine.env"): Readonly<Record<string, string>> {
  const text = fs.readFileSync(path.join(REPO_ROOT, "scripts", "testbed", name), "utf8");
  return Object.fromEntries(
    text
      .split("\n")
      .map((line) => /^([A-Z_]+)=(\S+)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], m[2]]),
  );
}

/** The pinned versions of scripts/testbed/versions.env. */
export function testbedVersions(): Readonly<Record<string, string>> {
  return testbedEnvFile("versions.env");
}
