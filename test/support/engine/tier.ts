/**
 * The e2e tier guard. A suite that needs real binaries must never pass silently without them: when
 * something is missing it prints a loud banner, records it in `${TMPDIR:-/tmp}/pulumi-karmada-tiers.txt`
 * (CI prints that file) and skips. When everything is present the suite runs and any failure fails.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { REPO_ROOT, findBinary, testbedEnv } from "../kube/binaries";

/** What a suite needs. */
export interface TierNeeds {
  /** Executables looked up on the test-bed PATH, e.g. `kube-apiserver`. @default [] */
  readonly binaries?: readonly string[];
  /** Pulumi resource plugins (npm package names without `@pulumi/`), at the version the npm SDK asks for. @default [] */
  readonly plugins?: readonly string[];
}

/** The outcome of {@link e2eTier}. */
export interface Tier {
  /** Whether everything needed is present. */
  readonly ready: boolean;
  /** What is missing (empty when ready). */
  readonly missing: readonly string[];
  /** `describe` when ready, else `describe.skip`. */
  readonly describe: jest.Describe;
}

/** File the tier outcomes are appended to. */
export function tierReportPath(): string {
  return path.join(process.env.TMPDIR || os.tmpdir() || "/tmp", "pulumi-karmada-tiers.txt");
}

/** Test-bed component (scripts/testbed/build.sh name) that provides a binary or plugin. */
const COMPONENT_OF: Readonly<Record<string, string>> = {
  etcd: "etcd",
  "kube-apiserver": "kube",
  "kube-controller-manager": "kube",
  pulumi: "pulumi",
  "pulumi-language-nodejs": "pulumi",
  kubectl: "kube",
};

/** The plugin version the installed npm SDK `@pulumi/<name>` requests (its `pulumi.version`, else its version). */
export function requiredPluginVersion(name: string): string {
  const pkg = JSON.parse(
    fs.readFileSync(path.join(REPO_ROOT, "node_modules", "@pulumi", name, "package.json"), "utf8"),
  );
  return String(pkg.pulumi?.version ?? pkg.version).replace(/^v/, "");
}

function installedPlugins(
  pulumi: string,
  env: Readonly<Record<string, string>>,
): { name: string; version: string }[] {
  const out = execFileSync(pulumi, ["plugin", "ls", "--json"], {
    encoding: "utf8",
    env: { ...env, PULUMI_SKIP_UPDATE_CHECK: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return (JSON.parse(out || "[]") as { name: string; kind: string; version: string }[])
    .filter((p) => p.kind === "resource")
    .map((p) => ({ name: p.name, version: String(p.version).replace(/^v/, "") }));
}

/** What of `needs` is missing, each entry naming the thing and its test-bed component. */
export function findMissing(needs: TierNeeds): string[] {
  const { env } = testbedEnv();
  const missing: string[] = [];
  for (const binary of needs.binaries ?? []) {
    if (!findBinary(binary, env)) missing.push(binary);
  }
  const plugins = needs.plugins ?? [];
  if (plugins.length > 0) {
    const pulumi = findBinary("pulumi", env);
    const installed = pulumi ? installedPlugins(pulumi, env) : [];
    for (const name of plugins) {
      const version = requiredPluginVersion(name);
      if (!installed.some((p) => p.name === name && p.version === version))
        missing.push(`plugin ${name} ${version}`);
    }
  }
  return missing;
}

/**
 * How to get what is missing: test-bed components come from scripts/testbed/build.sh; the Pulumi engine
 * (Node.js language host, provider plugins) cannot be built here and must be installed the usual way.
 */
export function buildHint(missing: readonly string[]): string {
  const engine = missing.filter((m) => m.startsWith("plugin ") || m.startsWith("pulumi"));
  const components = new Set(missing.filter((m) => !engine.includes(m)).map((m) => COMPONENT_OF[m] ?? m));
  const hints = [
    ...(components.size ? [`run scripts/testbed/build.sh ${[...components].join(" ")}`] : []),
    ...(engine.length
      ? [
          "the Pulumi engine and provider plugins cannot be built from the Go module proxy here (it withholds their modules, docs/testbed.md): install Pulumi the usual way",
        ]
      : []),
  ];
  return hints.join("; ");
}

/** The banner line for a suite that cannot run. */
export function notRunBanner(suite: string, missing: readonly string[]): string {
  return `E2E TIER NOT RUN: ${missing.join(", ")} (${buildHint(missing)}) [${suite}]`;
}

/**
 * Decides whether `suite` runs. Missing pieces: banner via console.warn and the tier report, and
 * `describe.skip`. Everything present: a `RUN` line in the report and the real `describe`.
 */
export function e2eTier(suite: string, needs: TierNeeds): Tier {
  const missing = findMissing(needs);
  const report = tierReportPath();
  if (missing.length > 0) {
    const banner = notRunBanner(suite, missing);
    const rule = "=".repeat(Math.min(banner.length, 100));
    console.warn(`\n${rule}\n${banner}\n${rule}\n`);
    // jest hides the console output of a file whose tests were all skipped: say it on stderr as well
    process.stderr.write(`\n${rule}\n${banner}\n${rule}\n`);
    fs.appendFileSync(report, `${banner}\n`);
    return { ready: false, missing, describe: describe.skip };
  }
  fs.appendFileSync(
    report,
    `E2E TIER RUN: ${suite}${process.env.CI === "true" ? " (CI: failures fail)" : ""}\n`,
  );
  return { ready: true, missing: [], describe };
}
