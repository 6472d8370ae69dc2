/**
 * Upstream Go modules the unit tier compares against (Kubernetes' OpenAPI schema, Karmada's manifests,
 * CRDs and karmadactl sources). They are read at test time from the Go module cache, never copied into
 * the repo. The unit project's globalSetup (test/support/unitGlobalSetup.ts) fetches them once with
 * `go mod download` and exports their directories; a missing module is a hard failure, unless
 * `PULUMI_KARMADA_NO_GO=1` says there is no Go here, in which case the suites that need them are skipped
 * with a loud banner.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { DEFAULT_KARMADA_VERSION, findRelease } from "../../lib/catalog";

/** One version of a Go module. */
export interface GoModule {
  /** Module path, e.g. `github.com/karmada-io/karmada`. */
  readonly path: string;
  /** Version tag, e.g. `v1.18.2`. */
  readonly version: string;
}

/** Karmada at the release the library deploys by default. */
export const KARMADA_MODULE: GoModule = {
  path: "github.com/karmada-io/karmada",
  version: DEFAULT_KARMADA_VERSION,
};

/** Kubernetes at the version the default release pairs with (its `api/openapi-spec/swagger.json`). */
export const KUBERNETES_MODULE: GoModule = {
  path: "k8s.io/kubernetes",
  version: findRelease(DEFAULT_KARMADA_VERSION).kubernetesVersion,
};

/** Explicit opt-out for machines without Go: `PULUMI_KARMADA_NO_GO=1` skips (loudly) what needs the modules. */
export const NO_GO_ENV = "PULUMI_KARMADA_NO_GO";

/** JSON object `{ "<path>@<version>": "<dir>" }` the globalSetup hands the test workers. */
export const MODULE_DIRS_ENV = "PULUMI_KARMADA_UPSTREAM_DIRS";

/** Whether the user opted out of Go (and so of the upstream comparisons). */
export function noGo(): boolean {
  return process.env[NO_GO_ENV] === "1";
}

/** `<path>@<version>` */
export function moduleId(module: GoModule): string {
  return `${module.path}@${module.version}`;
}

/** The command that fetches a module, for messages. */
export function downloadCommand(module: GoModule): string {
  return `go mod download -json ${moduleId(module)}`;
}

/** Runs `go mod download -json` for one module; the module's directory, or the reason it failed. */
function goModDownload(
  module: GoModule,
  offline: boolean,
): { dir: string } | { problem: string; goMissing?: boolean } {
  try {
    const out = execFileSync("go", ["mod", "download", "-json", moduleId(module)], {
      // outside any module: the download must not depend on (or touch) a go.mod
      cwd: tmpdir(),
      encoding: "utf8",
      env: { ...process.env, GOFLAGS: "-mod=mod", ...(offline ? { GOPROXY: "off" } : {}) },
      stdio: ["ignore", "pipe", "pipe"],
      // Kubernetes is a large download on a cold cache
      timeout: 20 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const dir = (JSON.parse(out) as { Dir?: string }).Dir;
    return dir && existsSync(dir)
      ? { dir }
      : { problem: `go mod download reported no directory (${out.trim()})` };
  } catch (e) {
    const error = e as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (error.code === "ENOENT")
      return { problem: "`go` (the Go toolchain) is not on PATH", goMissing: true };
    // go mod download -json reports the reason in the JSON's Error field (exit status 1)
    let reported: string | undefined;
    try {
      reported = (JSON.parse(error.stdout ?? "") as { Error?: string }).Error;
    } catch {
      // no JSON: the reason is on stderr
    }
    return { problem: (reported ?? error.stderr ?? error.message).trim() };
  }
}

/**
 * The module's directory in the Go module cache, fetched from the Go module proxy when it is not there
 * yet (`onFetch` is called first: a cold Kubernetes download takes a while). Throws, naming the module
 * and the command, when Go is missing or the download fails.
 */
export function downloadModule(module: GoModule, onFetch?: (module: GoModule) => void): string {
  let result = goModDownload(module, true);
  if ("problem" in result && !result.goMissing) {
    onFetch?.(module);
    result = goModDownload(module, false);
  }
  if ("dir" in result) return result.dir;
  throw new Error(
    [
      `cannot fetch the upstream Go module ${moduleId(module)}: ${result.problem}`,
      `The unit tests compare against it. Fetch it with:`,
      `  ${downloadCommand(module)}`,
      `or, on a machine without Go, set ${NO_GO_ENV}=1 to skip those tests (loudly).`,
    ].join("\n"),
  );
}

const resolved = new Map<string, string>();

/**
 * The module's directory: the one the globalSetup exported, else fetched now (a no-op when it is in the
 * module cache). Throws under {@link NO_GO_ENV}: a suite reading a module must be wrapped in
 * {@link describeUpstream}.
 */
export function upstreamModuleDir(module: GoModule): string {
  const id = moduleId(module);
  const known =
    resolved.get(id) ?? (JSON.parse(process.env[MODULE_DIRS_ENV] || "{}") as Record<string, string>)[id];
  if (known) return known;
  if (noGo()) {
    throw new Error(
      `${id} is not available: ${NO_GO_ENV}=1 is set (no Go); wrap this suite in describeUpstream`,
    );
  }
  const dir = downloadModule(module);
  resolved.set(id, dir);
  return dir;
}

/** The loud line printed for a suite skipped under {@link NO_GO_ENV}; `needs` says what it needs Go for. */
export function noGoBanner(suite: string, needs: string): string {
  return `UNIT SUITE NOT RUN: ${suite} (${NO_GO_ENV}=1: needs ${needs}; unset it and install Go to run it)`;
}

/**
 * `describe` for a suite that needs Go (`needs` says for what, for the banner). Under {@link NO_GO_ENV}
 * the body is not even collected (it may need Go while collecting): one skipped test named by the banner
 * stands in, and the banner goes to stderr (not the console: jest hides the console of an all-skipped
 * file).
 */
export function describeWithGo(name: string, needs: string, body: () => void): void {
  if (!noGo()) {
    describe(name, body);
    return;
  }
  const banner = noGoBanner(name, needs);
  const rule = "!".repeat(Math.min(banner.length, 100));
  process.stderr.write(`\n${rule}\n${banner}\n${rule}\n`);
  describe(name, () => it.skip(banner, () => undefined));
}

/** {@link describeWithGo} for a suite that reads upstream modules. */
export function describeUpstream(name: string, modules: readonly GoModule[], body: () => void): void {
  describeWithGo(name, modules.map(moduleId).join(", "), body);
}

/** Every document of a YAML file of a module, `file` relative to the module's directory. */
export function upstreamYaml(module: GoModule, file: string): Record<string, any>[] {
  return parseAllDocuments(readFileSync(join(upstreamModuleDir(module), file), "utf8"))
    .map((doc) => doc.toJS())
    .filter((doc) => doc !== null && doc !== undefined);
}
