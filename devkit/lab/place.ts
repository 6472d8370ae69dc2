/**
 * Where a lab process runs: a network namespace and a cgroup subtree. A small launcher script per place
 * moves itself into the cgroup, then execs `nsenter --net` with the process's command line, so the
 * process and everything it forks (containerd's shims, the containers) stay in that subtree.
 */
import * as fs from "fs";
import * as path from "path";
import { BackgroundProcess, startProcess } from "../processes";
import { ensureCgroup, joinCgroupLines } from "./cgroups";
import { inNamespace } from "./network";

/** A network namespace and cgroup to start processes in. */
export interface Place {
  readonly netns: string;
  /** Lab-relative cgroup path. */
  readonly cgroup: string;
  /** Where the launcher script, pid files and logs go. */
  readonly runDir: string;
}

/** The place's launcher: `<launcher> command args…` runs the command in the place. */
export const launcherPath = (place: Place) => path.join(place.runDir, "enter.sh");

/** The launcher's text (cgroup joins, then exec in the namespace). */
function launcherScript(place: Place): string {
  return [
    "#!/bin/bash",
    "# Written by devkit/lab/place.ts: joins the cgroup, then runs its arguments in the network namespace.",
    "set -e",
    ...joinCgroupLines(place.cgroup),
    `exec ${inNamespace(place.netns).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/** Creates the place's cgroup and launcher (idempotent). */
export function preparePlace(place: Place): void {
  ensureCgroup(place.cgroup);
  fs.mkdirSync(place.runDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(launcherPath(place), launcherScript(place), { mode: 0o700 });
}

/** Starts `command args` in the place (logs and pid file `<runDir>/<name>.log|.pid`). */
export function startIn(
  place: Place,
  name: string,
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): BackgroundProcess {
  return startProcess(place.runDir, name, launcherPath(place), [command, ...args], env);
}
