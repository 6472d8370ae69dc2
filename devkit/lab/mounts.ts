/**
 * Mounts a node leaves behind: kubelet's shared bind of its root dir and the pods' volumes (tmpfs for
 * Secrets, projected tokens), containerd's overlay root filesystems and shm, the pods' network
 * namespaces. A node's teardown unmounts every one under the node's directories, deepest first.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";

/** Decodes the octal escapes of /proc/self/mountinfo paths (`\040` is a space). */
function decodeMountPath(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Mount points at or below any of `prefixes`, deepest (longest) first, each once. */
export function mountsBelow(
  prefixes: readonly string[],
  mountinfo = fs.readFileSync("/proc/self/mountinfo", "utf8"),
): string[] {
  const within = (p: string) =>
    prefixes.some((prefix) => p === prefix || p.startsWith(`${prefix.replace(/\/+$/, "")}/`));
  const points = mountinfo
    .split("\n")
    .filter(Boolean)
    .map((line) => decodeMountPath(line.split(" ")[4]))
    .filter(within);
  return [...new Set(points)].sort((a, b) => b.length - a.length || b.localeCompare(a));
}

/**
 * Unmounts everything below `prefixes` until nothing is left there (a mount point can be stacked several
 * times). Lazily when a plain unmount is refused: by then the processes that used it are gone.
 */
export function unmountBelow(prefixes: readonly string[]): void {
  for (let round = 0; round < 10; round++) {
    const points = mountsBelow(prefixes);
    if (points.length === 0) return;
    for (const point of points) {
      try {
        execFileSync("umount", [point], { stdio: "ignore" });
      } catch {
        try {
          execFileSync("umount", ["-l", point], { stdio: "ignore" });
        } catch {
          // already gone with a parent
        }
      }
    }
  }
  const left = mountsBelow(prefixes);
  if (left.length > 0) throw new Error(`mounts left after unmounting: ${left.join(", ")}`);
}
