/**
 * How a lab comes up again (devkit/lab/lab.ts): the one there is used only when every process of it runs,
 * booted from its disks when it had started completely and then lost processes (a reboot, a crash), made
 * anew otherwise — never half of one reused. And what counts as "every process": each cluster's control
 * plane, each node's daemons, each machine's launcher, the registry of a lab with nodes.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { inspectLab, labProcesses, labStartAction, LabFound } from "../../../devkit/lab/lab";
import { LabSpec, planLab } from "../../../devkit/lab/plan";

const spec: LabSpec = {
  name: "t",
  octet: 240,
  dir: "/var/tmp/pk-lab-t",
  clusters: [
    { name: "host", nodes: 2 },
    { name: "member1", nodes: 0 },
  ],
  machines: [{ name: "etcd1" }],
};

const found = (over: Partial<LabFound>): LabFound => ({
  recorded: spec,
  complete: true,
  missing: [],
  ...over,
});

describe("labStartAction", () => {
  test("a complete lab whose every part runs is attached", () => {
    expect(labStartAction(spec, found({}))).toEqual({ start: "attached", reason: "every part of it runs" });
  });

  test("a complete lab that lost processes (a reboot, a crash) boots again from its disks, naming what was down", () => {
    const action = labStartAction(
      spec,
      found({ missing: ["member1 kube-controller-manager", "machine etcd1"] }),
    );
    expect(action.start).toBe("rebooted");
    expect(action.reason).toBe("not running: member1 kube-controller-manager, machine etcd1");
  });

  test("a lab that never finished starting is never reused, whatever of it runs", () => {
    for (const missing of [[], ["member1 kube-controller-manager"]]) {
      const action = labStartAction(spec, found({ complete: false, missing }));
      expect(action).toEqual({
        start: "new",
        reason: "the lab there never finished starting (an interrupted or failed start)",
      });
    }
  });

  test("no lab, or one made for other settings: a new one", () => {
    expect(labStartAction(spec, { complete: false, missing: [] }).start).toBe("new");
    const other = { ...spec, clusters: [{ name: "host", nodes: 3 }] };
    expect(labStartAction(spec, found({ recorded: other }))).toEqual({
      start: "new",
      reason: "the lab there was made for other settings",
    });
  });

  test("a long list of what is down is cut after six", () => {
    const missing = Array.from({ length: 9 }, (_, i) => `p${i}`);
    expect(labStartAction(spec, found({ missing })).reason).toBe("not running: p0, p1, p2, p3, p4, p5, …");
  });
});

describe("labProcesses", () => {
  test("every control-plane process of each cluster, every node's daemons, each machine, the registry", () => {
    const plan = planLab(spec);
    expect(labProcesses(plan).map((p) => p.what)).toEqual([
      "host etcd",
      "host kube-apiserver",
      "host kube-controller-manager",
      "host kube-scheduler",
      "host-n1 containerd",
      "host-n1 kubelet",
      "host-n1 kube-proxy",
      "host-n2 containerd",
      "host-n2 kubelet",
      "host-n2 kube-proxy",
      "member1 etcd",
      "member1 kube-apiserver",
      "member1 kube-controller-manager",
      "member1 kube-scheduler",
      "machine etcd1",
      "registry",
    ]);
  });

  test("a lab without nodes has no registry", () => {
    const plan = planLab({ ...spec, clusters: [{ name: "member1", nodes: 0 }] });
    expect(labProcesses(plan).map((p) => p.what)).not.toContain("registry");
  });
});

describe("inspectLab", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-lab-inspect-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("an empty directory holds no lab", () => {
    expect(inspectLab(dir)).toEqual({ complete: false, missing: [] });
  });

  test("a lab whose processes are all gone (pid files of processes that exited): everything is missing", () => {
    const labSpec: LabSpec = { ...spec, dir, name: "gone" };
    fs.writeFileSync(path.join(dir, "lab.json"), JSON.stringify(labSpec));
    fs.writeFileSync(path.join(dir, "lab.complete"), "x\n");
    // a pid file naming a process that no longer exists (pid 0x7ffffff is beyond any pid_max default)
    const etcd = labProcesses(planLab(labSpec))[0];
    fs.mkdirSync(etcd.runDir, { recursive: true });
    fs.writeFileSync(path.join(etcd.runDir, `${etcd.name}.pid`), `${0x7ffffff} 123\n["etcd"]\n`);
    const inspected = inspectLab(dir);
    expect(inspected.recorded).toEqual(labSpec);
    expect(inspected.complete).toBe(true);
    expect(inspected.missing).toEqual([
      "network namespace pk-gone",
      ...labProcesses(planLab(labSpec)).map((p) => p.what),
    ]);
    expect(labStartAction(labSpec, inspected).start).toBe("rebooted");
  });
});
