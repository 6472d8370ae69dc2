/**
 * The lab's cgroups. Every node's daemons (containerd and its shims, kubelet, kube-proxy) and its pods
 * live in one cgroup subtree per node, so a node is stopped by killing exactly what is in its subtree —
 * nothing the lab did not start is ever signalled — and removing the subtree proves nothing is left.
 *
 * The subtrees sit under this process's own memory cgroup (the machine accounts memory there), at the
 * same relative path in every hierarchy, because kubelet's `cgroupRoot` is one path for all of them.
 */
import * as fs from "fs";
import * as path from "path";

/** One mounted cgroup hierarchy. */
export interface CgroupHierarchy {
  readonly mountPoint: string;
  /** `1` for a v1 hierarchy (one or more controllers or a name), `2` for the unified one. */
  readonly version: 1 | 2;
  /** v1 mount options naming its controllers (`cpu`, `memory`, `name=systemd` …). */
  readonly controllers: readonly string[];
}

/** The cgroup hierarchies mounted in this process's mount namespace (from /proc/self/mountinfo). */
export function cgroupHierarchies(
  mountinfo = fs.readFileSync("/proc/self/mountinfo", "utf8"),
): CgroupHierarchy[] {
  const found: CgroupHierarchy[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!right) continue;
    const [fsType, , superOptions] = right.split(" ");
    const mountPoint = left.split(" ")[4];
    if (fsType === "cgroup2") found.push({ mountPoint, version: 2, controllers: [] });
    if (fsType === "cgroup") {
      const controllers = (superOptions ?? "").split(",").filter((o) => o !== "rw" && o !== "ro");
      found.push({ mountPoint, version: 1, controllers });
    }
  }
  return found;
}

/**
 * The base every lab cgroup goes under: this process's memory cgroup on cgroup v1 (or hybrid), its
 * unified cgroup on a pure v2 machine (from /proc/self/cgroup). "" at the root.
 */
export function ownCgroupBase(procCgroup = fs.readFileSync("/proc/self/cgroup", "utf8")): string {
  const entries = procCgroup
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [, , controllers, cgPath] = /^(\d+):([^:]*):(.*)$/.exec(line) ?? [];
      return { controllers: (controllers ?? "").split(","), cgPath: cgPath ?? "/" };
    });
  const memory = entries.find((e) => e.controllers.includes("memory"));
  const chosen = memory ?? entries.find((e) => e.controllers.length === 1 && e.controllers[0] === "");
  const base = chosen?.cgPath ?? "/";
  return base === "/" ? "" : base.replace(/\/+$/, "");
}

/** The absolute cgroup path (as kubelet's `cgroupRoot` wants it) of a lab-relative path. */
export function absoluteCgroup(relative: string, base = ownCgroupBase()): string {
  return `${base}/${relative}`;
}

const dirsOf = (relative: string, base: string, hierarchies: readonly CgroupHierarchy[]) =>
  hierarchies.map((h) => ({ h, dir: path.join(h.mountPoint, absoluteCgroup(relative, base)) }));

/**
 * Creates `relative` in every hierarchy. A new v1 cpuset cgroup has no CPUs or memory nodes, so no process
 * could join it: each level gets its parent's.
 */
export function ensureCgroup(
  relative: string,
  hierarchies = cgroupHierarchies(),
  base = ownCgroupBase(),
): void {
  for (const { h, dir } of dirsOf(relative, base, hierarchies)) {
    fs.mkdirSync(dir, { recursive: true });
    if (h.version !== 1 || !h.controllers.includes("cpuset")) continue;
    const levels = path.relative(h.mountPoint, dir).split(path.sep);
    let current = h.mountPoint;
    for (const level of levels) {
      const parent = current;
      current = path.join(current, level);
      for (const file of ["cpuset.cpus", "cpuset.mems"]) {
        const own = path.join(current, file);
        if (fs.readFileSync(own, "utf8").trim() === "") {
          fs.writeFileSync(own, fs.readFileSync(path.join(parent, file), "utf8").trim());
        }
      }
    }
  }
}

/** Shell lines that move the running shell (`$$`) into `relative` in every hierarchy (then `exec`). */
export function joinCgroupLines(
  relative: string,
  hierarchies = cgroupHierarchies(),
  base = ownCgroupBase(),
): string[] {
  return dirsOf(relative, base, hierarchies).map(
    ({ dir }) => `echo $$ > ${JSON.stringify(path.join(dir, "cgroup.procs"))}`,
  );
}

/** Every pid in `dir` and the cgroups below it. */
function pidsBelow(dir: string): number[] {
  if (!fs.existsSync(dir)) return [];
  const pids: number[] = [];
  const walk = (d: string) => {
    try {
      for (const line of fs.readFileSync(path.join(d, "cgroup.procs"), "utf8").split("\n")) {
        if (line.trim()) pids.push(Number(line));
      }
    } catch {
      return; // removed meanwhile
    }
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(d, entry.name));
    }
  };
  walk(dir);
  return pids;
}

/** The processes in the subtree `relative` (in any hierarchy), e.g. for a status line. */
export function processesIn(
  relative: string,
  hierarchies = cgroupHierarchies(),
  base = ownCgroupBase(),
): number[] {
  const all = new Set<number>();
  for (const { dir } of dirsOf(relative, base, hierarchies)) for (const pid of pidsBelow(dir)) all.add(pid);
  return [...all].sort((a, b) => a - b);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `state` to the freezer of the subtree, if this machine has a v1 freezer (a no-op otherwise). */
function freeze(
  relative: string,
  state: "FROZEN" | "THAWED",
  hierarchies: readonly CgroupHierarchy[],
  base: string,
) {
  for (const { h, dir } of dirsOf(relative, base, hierarchies)) {
    if (h.version === 1 && h.controllers.includes("freezer") && fs.existsSync(dir)) {
      fs.writeFileSync(path.join(dir, "freezer.state"), state);
    }
  }
}

/**
 * Kills every process of the subtree `relative` and removes the subtree from every hierarchy. Frozen
 * first, so nothing in it (containerd restarting a shim, kubelet a container) starts anything new
 * between the listing and the kill. Throws naming the pids when something survives `timeoutMs`.
 */
export async function removeCgroupTree(
  relative: string,
  timeoutMs = 30_000,
  hierarchies = cgroupHierarchies(),
  base = ownCgroupBase(),
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = processesIn(relative, hierarchies, base);
    if (pids.length === 0) break;
    if (Date.now() > deadline) {
      throw new Error(
        `cgroup ${relative}: processes ${pids.join(", ")} survived SIGKILL for ${timeoutMs} ms`,
      );
    }
    freeze(relative, "FROZEN", hierarchies, base);
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    freeze(relative, "THAWED", hierarchies, base);
    await sleep(200);
  }
  for (const { dir } of dirsOf(relative, base, hierarchies)) await removeEmptyTree(dir, deadline);
}

/**
 * rmdir of a cgroup directory and its children, deepest first (a cgroup with children cannot go). A
 * killed task may take a moment to leave its cgroup: EBUSY is retried until the deadline.
 */
async function removeEmptyTree(dir: string, deadline: number): Promise<void> {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await removeEmptyTree(path.join(dir, entry.name), deadline);
  }
  for (;;) {
    try {
      fs.rmdirSync(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EBUSY" || Date.now() > deadline) throw e;
      await sleep(100);
    }
  }
}
