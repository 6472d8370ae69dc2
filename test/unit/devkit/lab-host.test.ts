/**
 * How the lab reads this machine: cgroup hierarchies and its own cgroup (from /proc text), mount points
 * below a directory (deepest first, escapes decoded), the test bed's image list; and that containerd
 * itself accepts the config a node gets (`containerd config dump`, the real binary).
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { cgroupHierarchies, ownCgroupBase } from "../../../devkit/lab/cgroups";
import { e2eLabSpec } from "../../../devkit/lab/labs";
import { mountsBelow } from "../../../devkit/lab/mounts";
import { containerdConfig, nodeFiles } from "../../../devkit/lab/nodeConfig";
import { planLab } from "../../../devkit/lab/plan";
import { readImageList } from "../../../devkit/lab/registry";
import { requireBinary } from "../../../devkit/testbed";

const HYBRID_MOUNTINFO = [
  "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
  "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
  "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
  "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd",
  "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
].join("\n");

describe("cgroups", () => {
  test("hierarchies: every v1 controller mount and the unified one, the tmpfs above them not", () => {
    expect(cgroupHierarchies(HYBRID_MOUNTINFO)).toEqual([
      { mountPoint: "/sys/fs/cgroup/cpu", version: 1, controllers: ["cpu"] },
      { mountPoint: "/sys/fs/cgroup/memory", version: 1, controllers: ["memory"] },
      { mountPoint: "/sys/fs/cgroup/systemd", version: 1, controllers: ["name=systemd"] },
      { mountPoint: "/sys/fs/cgroup/unified", version: 2, controllers: [] },
    ]);
  });

  test("base: the memory cgroup on v1 (where this machine accounts memory), the unified one on pure v2", () => {
    expect(ownCgroupBase("4:memory:/process_api/abc\n1:cpu:/\n0::/\n")).toBe("/process_api/abc");
    expect(ownCgroupBase("0::/user.slice/session-1.scope\n")).toBe("/user.slice/session-1.scope");
    expect(ownCgroupBase("4:memory:/\n0::/\n")).toBe("");
  });

  test("this machine's own hierarchies are found", () => {
    expect(cgroupHierarchies().length).toBeGreaterThan(0);
  });
});

test("mounts below a directory: deepest first, each once, escaped spaces decoded, siblings not", () => {
  const info = [
    "100 1 0:50 / /lab/x rw - tmpfs tmpfs rw",
    "101 100 0:51 / /lab/x/pods/a\\040b/vol rw - tmpfs tmpfs rw",
    "102 100 0:52 / /lab/x rw - tmpfs tmpfs rw",
    "103 1 0:53 / /lab/xy rw - tmpfs tmpfs rw",
    "104 1 0:54 / /other rw - tmpfs tmpfs rw",
  ].join("\n");
  expect(mountsBelow(["/lab/x"], info)).toEqual(["/lab/x/pods/a b/vol", "/lab/x"]);
});

test("the image list: ref, upstream and contents per line; a line without its upstream is refused", () => {
  expect(
    readImageList("# ref\tupstream\tcontents\npause:3.10.1\tregistry.k8s.io/pause:3.10.1\t/pause\n"),
  ).toEqual([{ ref: "pause:3.10.1", upstream: "registry.k8s.io/pause:3.10.1", contents: "/pause" }]);
  expect(() => readImageList("pause:3.10.1\n")).toThrow(/without a ref and its upstream/);
});

const containerd = () => requireBinary("containerd", process.env as Record<string, string>);
test("containerd reads a node's config: its root, socket, CRI settings as rendered", () => {
  const node = planLab(e2eLabSpec()).clusters[0].nodes[0];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-containerd-"));
  try {
    const file = path.join(dir, "containerd.toml");
    fs.writeFileSync(file, containerdConfig(node, "10.231.0.1:5000/pause:3.10.1"));
    const dump = execFileSync(containerd(), ["--config", file, "config", "dump"], { encoding: "utf8" });
    expect(dump).toContain(`root = "${nodeFiles(node).containerdRoot}"`);
    expect(dump).toContain(`address = "${nodeFiles(node).containerdSocket}"`);
    expect(dump).toContain('sandbox_image = "10.231.0.1:5000/pause:3.10.1"');
    expect(dump).toContain("restrict_oom_score_adj = true");
    expect(dump).toContain("netns_mounts_under_state_dir = true");
    expect(dump).toContain(`config_path = "${nodeFiles(node).registryHostsDir}"`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
