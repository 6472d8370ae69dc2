/**
 * The previous release of this library, for the upgrade gate: its sources at a pinned commit of this
 * repository (`git archive`, so no work tree is touched) with its own `npm ci`, in a cache outside the
 * repository keyed by the commit. A stack deployed with it and previewed with the current code shows
 * what upgrading pulumi-karmada does to a running estate.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../testbed";
import { TESTBED_DIR } from "./tier";

/**
 * The release an upgrade starts from. Move it forward when a release is cut: the gate then proves the
 * step from that release to the code under test.
 */
export const PREVIOUS_RELEASE = {
  /** main at the end of the multi-language work (issue 13), before the performance changes. */
  commit: "b59ada4286a5643d9f7149c08eb7a8e253d771c6",
  label: "b59ada4 (issue 13 landed)",
} as const;

/** Where releases are unpacked: next to the test bed's cache, one directory per commit. */
const RELEASES_DIR = path.join(path.dirname(TESTBED_DIR), "releases");

/** Says why the release cannot be unpacked, or undefined when its commit is in this clone's history. */
function missingRelease(commit: string = PREVIOUS_RELEASE.commit): string | undefined {
  try {
    execFileSync("git", ["-C", REPO_ROOT, "cat-file", "-e", `${commit}^{commit}`], { stdio: "ignore" });
    return undefined;
  } catch {
    return `commit ${commit} is not in this clone's history (a shallow clone?): git fetch --unshallow`;
  }
}

/**
 * The release's source tree with its dependencies installed (cached: the first call unpacks and runs
 * `npm ci`, later calls return at once). A partial unpack (interrupted) is redone.
 */
export function previousReleaseTree(commit: string = PREVIOUS_RELEASE.commit): string {
  const dir = path.join(RELEASES_DIR, commit);
  const stamp = path.join(dir, ".pulumi-karmada-release-ready");
  if (fs.existsSync(stamp)) return dir;
  const why = missingRelease(commit);
  if (why) throw new Error(why);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const archive = execFileSync("git", ["-C", REPO_ROOT, "archive", "--format=tar", commit], {
    maxBuffer: 1 << 30,
  });
  execFileSync("tar", ["-xf", "-", "-C", dir], { input: archive });
  execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  fs.writeFileSync(stamp, `${commit}\n`);
  return dir;
}
