/**
 * The npm package as it would be published, and a project that adopts it: the work tree a clean checkout
 * has is copied aside, built and packed there (the repository's own bin/ is never touched, so stale build
 * output cannot leak into the tarball and other suites building bin/ are not disturbed), then the tarball
 * is installed into a project like any registry package.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { promisify } from "util";
import { REPO_ROOT } from "../../devkit/testbed";

const execFileAsync = promisify(execFile);

/** Files the package holds besides the compiled library (npm adds package.json itself). */
export const PACKAGE_DOCUMENTS = [
  "package.json",
  "README.md",
  "LICENSE",
  "CHANGELOG.md",
  "schemas/stack-config.schema.json",
  // the copy next to the compiled stack program, which checks its settings against it
  "bin/schemas/stack-config.schema.json",
  // the policy pack's manifest and the package.json the engine reads its version from
  "bin/policy/PulumiPolicy.yaml",
  "bin/policy/package.json",
  // the console client's types, generated from console/openapi.json (its index.d.ts imports them)
  "bin/console/client/schema.d.ts",
  // the web console the `pulumi-karmada-console` command serves: its page, stylesheet and compiled scripts
  "bin/console/web/index.html",
  "bin/console/web/style.css",
  "bin/console/web/dist/web/app.js",
  "bin/console/web/dist/client/index.js",
] as const;

/** Sources compiled into bin/ (tsconfig.build.json): the entry point and these directories, tests excluded. */
export const LIBRARY_SOURCE_ROOTS = [
  "index.ts",
  "lib/",
  "components/",
  "stacks/",
  "policy/",
  // the console's server (`pulumi-karmada-console`) and its typed client (`pulumi-karmada/console-client`)
  "console/server/",
  "console/client/",
] as const;

/** The repository's own stack program: it runs when loaded, so it is no part of the library (`pulumi-karmada/stack` is). */
export const NOT_PUBLISHED_SOURCES = ["stacks/index.ts"] as const;

/** Runs a command without blocking the event loop (clusters keep starting meanwhile); failures carry the output. */
export async function run(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv },
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      maxBuffer: 64 * 1024 * 1024,
      encoding: "utf8",
    });
    return stdout;
  } catch (e) {
    const err = e as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(" ")} (in ${options.cwd}) failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`,
    );
  }
}

/** Files of the work tree that a clean checkout would have: tracked or untracked-but-not-ignored, present on disk. */
export async function checkoutFiles(repo = REPO_ROOT): Promise<string[]> {
  const out = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repo,
  });
  const files = [...new Set(out.split("\0").filter(Boolean))];
  return files.filter((f) => fs.existsSync(path.join(repo, f))).sort();
}

/** `X.ts` → `bin/X.js` and `bin/X.d.ts` for every library source (tests and declaration files excluded). */
export function compiledLibraryFiles(files: readonly string[]): string[] {
  const library = files.filter(
    (f) =>
      LIBRARY_SOURCE_ROOTS.some((root) => (root.endsWith("/") ? f.startsWith(root) : f === root)) &&
      f.endsWith(".ts") &&
      !(NOT_PUBLISHED_SOURCES as readonly string[]).includes(f) &&
      !f.endsWith(".d.ts") &&
      !f.endsWith(".test.ts"),
  );
  return library.flatMap((f) => [`bin/${f.replace(/\.ts$/, ".js")}`, `bin/${f.replace(/\.ts$/, ".d.ts")}`]);
}

/** Entries of `actual` not in `expected`, and the other way round (both sorted). */
export function fileListDifference(
  actual: readonly string[],
  expected: readonly string[],
): { unexpected: string[]; missing: string[] } {
  const have = new Set(actual);
  const want = new Set(expected);
  return {
    unexpected: [...have].filter((f) => !want.has(f)).sort(),
    missing: [...want].filter((f) => !have.has(f)).sort(),
  };
}

/** A packed package. */
export interface PackedPackage {
  /** The `.tgz`. */
  readonly tarball: string;
  /** The files of the checkout it was built from (repository-relative). */
  readonly sourceFiles: readonly string[];
}

/**
 * Copies the checkout's files to `dir`/tree (with a link to the repository's node_modules for the
 * compiler), runs `npm run build` and `npm pack` there; the tarball lands in `dir`.
 */
export async function packCheckout(dir: string): Promise<PackedPackage> {
  const tree = path.join(dir, "tree");
  const sourceFiles = await checkoutFiles();
  for (const file of sourceFiles) {
    fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, file), path.join(tree, file));
  }
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(tree, "node_modules"));
  await run("npm", ["run", "--silent", "build"], { cwd: tree });
  // lifecycle scripts off: the build above is the one under test
  const out = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
    cwd: tree,
  });
  const [{ filename }] = JSON.parse(out) as { filename: string }[];
  return { tarball: path.join(dir, filename), sourceFiles };
}

/** Paths inside a package tarball, read from the archive itself (without npm's `package/` prefix). */
export async function tarballEntries(tarball: string): Promise<string[]> {
  const out = await run("tar", ["-tzf", tarball], { cwd: path.dirname(tarball) });
  return out
    .split("\n")
    .filter((line) => line && !line.endsWith("/"))
    .map((line) => line.replace(/^package\//, ""))
    .sort();
}

/**
 * Installs `tarball` into the npm project in `dir` as an adopter would (`npm install <tgz>`), with the
 * project's other dependencies from the registry — the npm cache first. Lifecycle scripts are off: the
 * provider SDKs' install scripts would try to download plugins the test bed already has.
 */
export async function installTarball(dir: string, tarball: string): Promise<void> {
  await run(
    "npm",
    [
      "install",
      tarball,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel=error",
    ],
    { cwd: dir, env: { ...process.env, npm_config_update_notifier: "false" } },
  );
}
