/**
 * The e2e tier guard, the one every suite needing real binaries uses. Such a suite never passes silently
 * without them: when something is missing it registers one failing test whose error is a banner naming
 * what is missing and how to get it (`scripts/testbed/build.sh <component>`), prints the banner on stderr
 * and records it in `${TMPDIR:-/tmp}/pulumi-karmada-tiers.txt` (CI prints that file). Only the explicit
 * opt-out `PULUMI_KARMADA_SKIP_E2E=1` (machines without Go) turns that failure into a skip, with the same
 * banner. When everything is present the suite runs and any failure fails.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { REPO_ROOT, findBinary, testbedEnv } from "../testbed";

/** What a suite needs. */
export interface TierNeeds {
  /** Executables looked up on the test-bed PATH, e.g. `kube-apiserver`. @default [] */
  readonly binaries?: readonly string[];
  /** Pulumi resource plugins (npm package names without `@pulumi/`), at the version the npm SDK asks for. @default [] */
  readonly plugins?: readonly string[];
  /**
   * Test-bed components kept off PATH, by build.sh name (`karmada-previous`, `kube-previous`,
   * `machine-image`). @default []
   */
  readonly components?: readonly OffPathComponent[];
}

/** Test-bed components not on PATH (env.sh exports their directory instead). */
const OFF_PATH_COMPONENTS = ["kube-previous", "karmada-previous", "machine-image"] as const;
type OffPathComponent = (typeof OFF_PATH_COMPONENTS)[number];

/**
 * The directory env.sh exports for an off-PATH component: the machine image's root filesystem
 * (`TESTBED_MACHINE_IMAGE`), a previous release's bin dir (`TESTBED_KARMADA_PREVIOUS_BIN`, …).
 */
const componentDirVariable = (component: OffPathComponent) =>
  component === "machine-image"
    ? "TESTBED_MACHINE_IMAGE"
    : `TESTBED_${component.toUpperCase().replace(/-/g, "_")}_BIN`;

/** The outcome of {@link e2eTier}. */
export interface Tier {
  /** Whether everything needed is present. */
  readonly ready: boolean;
  /** What is missing (empty when ready). */
  readonly missing: readonly string[];
  /**
   * `describe` when ready; else a stand-in that registers, instead of the body, one test failing with the
   * banner (skipped under {@link SKIP_E2E_ENV}).
   */
  readonly describe: jest.Describe;
}

/** Explicit opt-out: `PULUMI_KARMADA_SKIP_E2E=1` skips (loudly) the suites whose binaries are missing. */
const SKIP_E2E_ENV = "PULUMI_KARMADA_SKIP_E2E";

/** The test bed's directory (as scripts/testbed/lib.sh computes it): one `<component>-<version>` dir each. */
export const TESTBED_DIR = path.join(
  process.env.PULUMI_KARMADA_CACHE || path.join(os.homedir(), ".cache", "pulumi-karmada"),
  "testbed",
);

/** File the tier outcomes are appended to. */
function tierReportPath(): string {
  return path.join(process.env.TMPDIR || os.tmpdir() || "/tmp", "pulumi-karmada-tiers.txt");
}

/** Test-bed component (scripts/testbed/build.sh name) that provides a binary; provider plugins come with `engine`. */
const COMPONENT_OF: Readonly<Record<string, string>> = {
  etcd: "etcd",
  etcdctl: "etcd",
  etcdutl: "etcd",
  "kube-apiserver": "kube",
  "kube-controller-manager": "kube",
  "karmada-aggregated-apiserver": "karmada",
  "karmada-controller-manager": "karmada",
  "karmada-scheduler": "karmada",
  "karmada-webhook": "karmada",
  "karmada-descheduler": "karmada",
  "karmada-agent": "karmada",
  karmadactl: "karmada",
  "karmada-search": "karmada",
  "karmada-metrics-adapter": "karmada",
  "karmada-scheduler-estimator": "karmada",
  kubelet: "node",
  "kube-proxy": "node",
  "kube-scheduler": "node",
  kubectl: "node",
  pulumi: "engine",
  "pulumi-language-nodejs": "engine",
};

/** Tools the test bed does not build: the Debian package that installs each. */
const SYSTEM_PACKAGE_OF: Readonly<Record<string, string>> = {
  "systemd-analyze": "systemd",
  shellcheck: "shellcheck",
  containerd: "containerd",
  runc: "runc",
  skopeo: "skopeo",
  "docker-registry": "docker-registry",
  nft: "nftables",
  nsenter: "util-linux",
  chromium: "chromium",
};

/** The plugin version the installed npm SDK `@pulumi/<name>` requests (its `pulumi.version`, else its version). */
export function requiredPluginVersion(name: string): string {
  const pkg = JSON.parse(
    fs.readFileSync(path.join(REPO_ROOT, "node_modules", "@pulumi", name, "package.json"), "utf8"),
  );
  return String(pkg.pulumi?.version ?? pkg.version).replace(/^v/, "");
}

/** The resource plugins `pulumi plugin ls` lists in `env` (its PULUMI_HOME), versions without `v`. */
export function installedPlugins(
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

/** False for a binary in a test-bed component dir whose build has not finished (no `.done` yet). */
function finished(binary: string): boolean {
  const relative = path.relative(TESTBED_DIR, binary);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return true; // installed the usual way
  return fs.existsSync(path.join(TESTBED_DIR, relative.split(path.sep)[0], ".done"));
}

/** What of `needs` is missing: binary names, and `plugin <name> <version>` for plugins. */
function findMissing(needs: TierNeeds): string[] {
  const { env } = testbedEnv();
  const missing: string[] = [];
  for (const binary of needs.binaries ?? []) {
    const found = findBinary(binary, env);
    // a build in progress leaves half-written binaries behind: never run those
    if (!found || !finished(found)) missing.push(binary);
  }
  for (const component of needs.components ?? []) {
    const dir = env[componentDirVariable(component)];
    if (!dir || !fs.existsSync(dir) || !finished(path.join(dir, "."))) missing.push(component);
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
 * How to get what is missing: test-bed components (the engine, with its provider plugins, included) from
 * scripts/testbed/build.sh; tools the test bed does not build from the system's packages.
 */
export function buildHint(missing: readonly string[]): string {
  const components = new Set<string>();
  const packages = new Set<string>();
  const others: string[] = [];
  for (const m of missing) {
    const component = m.startsWith("plugin ")
      ? "engine"
      : (OFF_PATH_COMPONENTS as readonly string[]).includes(m)
        ? m
        : COMPONENT_OF[m];
    if (component) components.add(component);
    else if (SYSTEM_PACKAGE_OF[m]) packages.add(SYSTEM_PACKAGE_OF[m]);
    else others.push(m);
  }
  return [
    ...(components.size ? [`run scripts/testbed/build.sh ${[...components].join(" ")}`] : []),
    ...(packages.size
      ? [`install ${[...packages].join(" ")} (apt-get install -y ${[...packages].join(" ")})`]
      : []),
    ...(others.length ? [`put ${others.join(", ")} on PATH`] : []),
  ].join("; ");
}

/** The banner line for a suite that cannot run. */
export function notRunBanner(suite: string, missing: readonly string[]): string {
  return `E2E TIER NOT RUN: ${missing.join(", ")} (${buildHint(missing)}) [${suite}]`;
}

/**
 * A `describe` that never runs its body (collecting it may already start work) but registers one test
 * in its place: failing with `banner`, or skipped and named by it.
 */
function standIn(banner: string, skip: boolean): jest.Describe {
  const register = (name: unknown) =>
    describe(String(name), () => {
      if (skip) test.skip(banner, () => undefined);
      else
        test("has the binaries it needs", () => {
          throw new Error(`${banner}\n(to skip such suites instead, set ${SKIP_E2E_ENV}=1)`);
        });
    });
  return Object.assign(register, {
    only: register,
    skip: describe.skip,
    each: () => register,
  }) as unknown as jest.Describe;
}

/**
 * Decides whether `suite` runs. Everything present: an `E2E TIER RUN` line in the report and the real
 * `describe`. Something missing: the banner on stderr and in the report, and a `describe` whose only
 * test fails with it — or is skipped, under {@link SKIP_E2E_ENV}.
 */
export function e2eTier(suite: string, needs: TierNeeds): Tier {
  const missing = findMissing(needs);
  const report = tierReportPath();
  if (missing.length > 0) {
    const skip = process.env[SKIP_E2E_ENV] === "1";
    const banner = notRunBanner(suite, missing);
    const rule = "=".repeat(Math.min(banner.length, 100));
    // stderr, not the console: jest hides the console of a file whose tests were all skipped
    process.stderr.write(`\n${rule}\n${banner}\n${rule}\n`);
    fs.appendFileSync(report, `${banner} — ${skip ? `skipped (${SKIP_E2E_ENV}=1)` : "the suite FAILS"}\n`);
    return { ready: false, missing, describe: standIn(banner, skip) };
  }
  fs.appendFileSync(
    report,
    `E2E TIER RUN: ${suite}${process.env.CI === "true" ? " (CI: failures fail)" : ""}\n`,
  );
  return { ready: true, missing: [], describe };
}
