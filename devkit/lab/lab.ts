/**
 * A lab of real Kubernetes nodes on this machine, in install order: network → registry (every image the
 * test bed built, pushed) → each cluster's control plane → its nodes → CoreDNS and local-path storage.
 * Everything it starts lives in the lab's cgroup subtree, namespaces and directories, so `stopLab` removes
 * exactly that and `labLeftovers` proves it.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { requireBinary, testbedEnv } from "../testbed";
import { AddonImages, LabObject, STORAGE_NAMESPACE, corednsObjects, localPathObjects } from "./addons";
import { cgroupHierarchies, absoluteCgroup, processesIn, removeCgroupTree } from "./cgroups";
import { isRecordedProcessRunning, readPidFile } from "../processes";
import {
  CONTROL_PLANE_PROCESSES,
  clusterFiles,
  controlPlanePlace,
  issueClusterCredentials,
  startControlPlane,
} from "./controlPlane";
import { mountsBelow, unmountBelow } from "./mounts";
import {
  MACHINE_PROCESS,
  cleanUpMachines,
  machineAccess,
  MachineAccess,
  machineFiles,
  machineLeftovers,
  startMachines,
} from "./machine";
import { createLabNetwork, deleteLink, deleteNamespace, namespaceExists, NETNS_DIR } from "./network";
import { NODE_PROCESSES, nodePlace, startNode } from "./node";
import { ClusterPlan, LabPlan, LabSpec, MachinePlan, machineOf, planLab } from "./plan";
import { Place, preparePlace } from "./place";
import {
  BuiltImage,
  ImageSource,
  REGISTRY_PROCESS,
  pushImages,
  readImageList,
  registryPlace,
  startRegistry,
  testbedImages,
} from "./registry";

/** The file a started lab records its spec in (so another process can find, check and stop it). */
const SPEC_FILE = "lab.json";
/**
 * Written once the lab has started completely: its disks then hold a whole lab (machines installed,
 * clusters' PKI and data), which can be booted again. A lab without it never finished starting.
 */
const COMPLETE_FILE = "lab.complete";

/** A lab that is up. */
export interface Lab {
  readonly plan: LabPlan;
  /** What the registry holds (pushed at start). */
  readonly images: readonly BuiltImage[];
  /** Admin kubeconfig of a cluster (a credential: never log it). */
  kubeconfig(cluster: string): string;
  /** Full reference of a built image in the lab registry, by its repository (`pause`, `karmada/etcd` …). */
  image(repository: string): string;
  /** A machine of the lab, by name. */
  machine(name: string): MachinePlan;
  /** How to log in to the lab's machines (key and known_hosts files). */
  readonly machineAccess: MachineAccess;
}

/** The full reference in the lab registry of the image whose repository is `repository`. */
function imageIn(lab: LabPlan, images: readonly BuiltImage[], repository: string): string {
  const found = images.find((i) => i.ref.slice(0, i.ref.lastIndexOf(":")) === repository);
  if (!found) {
    throw new Error(
      `the test bed built no ${repository} image (it has ${images.map((i) => i.ref).join(", ")})`,
    );
  }
  return `${lab.registry}/${found.ref}`;
}

function labHandle(plan: LabPlan, images: readonly BuiltImage[]): Lab {
  return {
    plan,
    images,
    kubeconfig: (cluster) => {
      const found = plan.clusters.find((c) => c.name === cluster);
      if (!found) throw new Error(`lab ${plan.name} has no cluster ${cluster}`);
      return fs.readFileSync(clusterFiles(found).kubeconfig("admin"), "utf8");
    },
    image: (repository) => imageIn(plan, images, repository),
    machine: (name) => machineOf(plan, name),
    machineAccess: machineAccess(plan),
  };
}

/** Whether the lab runs pods (then it needs the registry and the images). */
const runsPods = (plan: LabPlan) => plan.clusters.some((c) => c.nodes.length > 0);

/** Applies objects with kubectl (server-side apply, field manager `lab`) as the cluster's admin. */
export function applyObjects(cluster: ClusterPlan, objects: readonly LabObject[]): void {
  const list = { apiVersion: "v1", kind: "List", items: objects };
  execFileSync(
    requireBinary("kubectl"),
    [
      "--kubeconfig",
      clusterFiles(cluster).kubeconfig("admin"),
      "apply",
      "--server-side",
      "--field-manager=lab",
      "-f",
      "-",
    ],
    { input: JSON.stringify(list), stdio: ["pipe", "ignore", "pipe"], env: testbedEnv().env },
  );
}

/** Waits (kubectl rollout status) until the Deployments are available. */
function awaitDeployments(
  cluster: ClusterPlan,
  deployments: readonly [namespace: string, name: string][],
  timeoutSeconds = 180,
): void {
  for (const [namespace, name] of deployments) {
    try {
      execFileSync(
        requireBinary("kubectl"),
        [
          "--kubeconfig",
          clusterFiles(cluster).kubeconfig("admin"),
          "-n",
          namespace,
          "rollout",
          "status",
          `deployment/${name}`,
          `--timeout=${timeoutSeconds}s`,
        ],
        { stdio: ["ignore", "pipe", "pipe"], env: testbedEnv().env },
      );
    } catch (e) {
      const out =
        `${(e as { stdout?: Buffer }).stdout ?? ""}${(e as { stderr?: Buffer }).stderr ?? ""}`.trim();
      throw new Error(`cluster ${cluster.name}: deployment ${namespace}/${name} not available: ${out}`);
    }
  }
}

/**
 * Starts a new lab (a lab of the same name left over from an earlier run is removed first, disks and all)
 * and resolves once every node is Ready, every cluster's DNS and storage are available and every machine
 * is running. On failure, what was started stays for inspection (logs under the lab dir); `stopLab`
 * removes it, and {@link ensureLab} never reuses it.
 */
export async function startLab(spec: LabSpec, source?: ImageSource): Promise<Lab> {
  const plan = planLab(spec);
  await stopLab(plan, { keepDir: false });
  fs.mkdirSync(plan.dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(plan.dir, SPEC_FILE), `${JSON.stringify(spec, null, 2)}\n`);
  const lab = await bootLab(plan, source, { newDisks: true });
  fs.writeFileSync(path.join(plan.dir, COMPLETE_FILE), `${new Date().toISOString()}\n`);
  return lab;
}

/**
 * Boots every part of the lab in install order. With `newDisks` each cluster gets a new PKI; without, it
 * is a reboot: machines boot their own disks (host keys, units, data), clusters their PKI and etcd data.
 */
async function bootLab(
  plan: LabPlan,
  source: ImageSource | undefined,
  options: { readonly newDisks: boolean },
): Promise<Lab> {
  createLabNetwork(plan);
  const pushed = async () => {
    if (!runsPods(plan)) return [];
    await startRegistry(plan);
    return pushImages(plan, source ?? testbedImages());
  };
  const [images] = await Promise.all([
    pushed(),
    startMachines(plan),
    ...plan.clusters.map((c) => startClusterControlPlane(plan, c, options.newDisks)),
  ]);
  await Promise.all(plan.clusters.map((c) => startNodesAndAddons(plan, c, images)));
  return labHandle(plan, images);
}

/** How {@link ensureLab} came by its lab. */
export type LabStart =
  /** every process of it was running */
  | "attached"
  /** it had started completely before, then lost processes (a reboot, a crash): booted again from its disks */
  | "rebooted"
  /** there was none, or one that never finished starting or was made from another spec: a new one */
  | "new";

/** What is on the machine of a lab in a directory (see {@link inspectLab}). */
export interface LabFound {
  /** The spec it was started with, if one was. */
  readonly recorded?: LabSpec;
  /** Whether it once started completely (its disks hold a whole lab). */
  readonly complete: boolean;
  /** The parts of it that do not run (empty when all do). */
  readonly missing: readonly string[];
}

/** What to do with the lab `found` when `spec` is wanted, and why (pure). */
export function labStartAction(spec: LabSpec, found: LabFound): { start: LabStart; reason: string } {
  if (!found.recorded) return { start: "new", reason: "no lab was started there before" };
  if (JSON.stringify(found.recorded) !== JSON.stringify(spec))
    return { start: "new", reason: "the lab there was made for other settings" };
  if (!found.complete)
    return { start: "new", reason: "the lab there never finished starting (an interrupted or failed start)" };
  if (found.missing.length === 0) return { start: "attached", reason: "every part of it runs" };
  return {
    start: "rebooted",
    reason: `not running: ${found.missing.slice(0, 6).join(", ")}${found.missing.length > 6 ? ", …" : ""}`,
  };
}

/** One process a running lab has: what it is, and the run dir and name of its pid file. */
interface LabProcess {
  readonly what: string;
  readonly runDir: string;
  readonly name: string;
}

/** Every process a running lab has (not the processes of places others start in it, e.g. a mirror). */
export function labProcesses(plan: LabPlan): LabProcess[] {
  const list: LabProcess[] = [];
  for (const c of plan.clusters) {
    const runDir = controlPlanePlace(plan, c).runDir;
    for (const name of CONTROL_PLANE_PROCESSES) list.push({ what: `${c.name} ${name}`, runDir, name });
    for (const n of c.nodes)
      for (const name of NODE_PROCESSES)
        list.push({ what: `${n.name} ${name}`, runDir: nodePlace(n).runDir, name });
  }
  for (const m of plan.machines)
    list.push({ what: `machine ${m.name}`, runDir: machineFiles(m).runDir, name: MACHINE_PROCESS });
  if (runsPods(plan))
    list.push({ what: "registry", runDir: registryPlace(plan).runDir, name: REGISTRY_PROCESS });
  return list;
}

/** Reads what of the lab in `dir` is there: its spec, whether it completed, which of its processes are gone. */
export function inspectLab(dir: string): LabFound {
  const recorded = recordedSpec(dir);
  if (!recorded) return { complete: false, missing: [] };
  const plan = planLab(recorded);
  const missing = [
    ...(namespaceExists(plan.netns) ? [] : [`network namespace ${plan.netns}`]),
    ...labProcesses(plan)
      .filter((p) => !isRecordedProcessRunning(readPidFile(path.join(p.runDir, `${p.name}.pid`))))
      .map((p) => p.what),
  ];
  return { recorded, complete: fs.existsSync(path.join(dir, COMPLETE_FILE)), missing };
}

/** Options of {@link ensureLab}. */
export interface EnsureLabOptions {
  /** Images to push when a lab running pods starts. @default the test bed's */
  readonly source?: ImageSource;
  /** Called before a new lab replaces what is in its directory (e.g. to discard state made on the old one). */
  readonly beforeNew?: (reason: string) => void | Promise<void>;
  /** Told how the lab came up and why. */
  readonly log?: (message: string) => void;
}

/**
 * The lab of `spec`, running: the one there if every part of it runs; booted again from its own disks if
 * it had started completely and then lost processes (every process of it is stopped first, as at a power
 * cut, then everything boots: machines from their overlays, clusters from their PKI and etcd data); else a
 * new one. Never reuses half a lab. A complete lab that cannot boot again is an error (its disks are left
 * for a person: `stopLab` removes them), never silently replaced.
 */
export async function ensureLab(
  spec: LabSpec,
  options: EnsureLabOptions = {},
): Promise<{ readonly lab: Lab; readonly start: LabStart }> {
  const plan = planLab(spec);
  const { start, reason } = labStartAction(spec, inspectLab(spec.dir));
  const log = options.log ?? (() => undefined);
  if (start === "attached") {
    log(`lab ${spec.name} runs (${spec.dir})`);
    return { lab: attachedHandle(plan, options.source), start };
  }
  if (start === "rebooted") {
    log(`lab ${spec.name} booting again from its disks (${reason})`);
    await stopLab(plan, { keepDir: true });
    try {
      return { lab: await bootLab(plan, options.source, { newDisks: false }), start };
    } catch (e) {
      throw new Error(
        `lab ${spec.name} could not boot again from its disks in ${spec.dir}: ${(e as Error).message}\n` +
          "(its files are kept; stopping it removes them, and the next start makes a new lab)",
      );
    }
  }
  log(`lab ${spec.name}: a new one (${reason})`);
  await options.beforeNew?.(reason);
  return { lab: await startLab(spec, options.source), start };
}

// The control planes start while the images are pushed; nodes need the images (the pause image first).
// A cluster booted again keeps its PKI: every kubeconfig handed out stays valid.
async function startClusterControlPlane(plan: LabPlan, cluster: ClusterPlan, newPki: boolean): Promise<void> {
  if (newPki) issueClusterCredentials(cluster);
  await startControlPlane(plan, cluster);
}

async function startNodesAndAddons(
  plan: LabPlan,
  cluster: ClusterPlan,
  images: readonly BuiltImage[],
): Promise<void> {
  if (cluster.nodes.length === 0) return;
  const pause = imageIn(plan, images, "pause");
  await Promise.all(cluster.nodes.map((node) => startNode(plan, cluster, node, pause)));
  const addonImages: AddonImages = {
    coredns: imageIn(plan, images, "coredns/coredns"),
    localPathProvisioner: imageIn(plan, images, "rancher/local-path-provisioner"),
    busybox: imageIn(plan, images, "busybox"),
  };
  applyObjects(cluster, [...corednsObjects(cluster, addonImages), ...localPathObjects(cluster, addonImages)]);
  awaitDeployments(cluster, [
    ["kube-system", "coredns"],
    [STORAGE_NAMESPACE, "local-path-provisioner"],
  ]);
}

/** The spec a lab in `dir` was started with, if one was. */
export function recordedSpec(dir: string): LabSpec | undefined {
  const file = path.join(dir, SPEC_FILE);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as LabSpec) : undefined;
}

/** The handle of the lab recorded in `dir` when every part of it runs (see {@link inspectLab}). */
export function attachLab(dir: string, source?: ImageSource): Lab | undefined {
  const found = inspectLab(dir);
  if (!found.recorded || labStartAction(found.recorded, found).start !== "attached") return undefined;
  return attachedHandle(planLab(found.recorded), source);
}

/** The handle of a running lab (its registry's list read back). */
function attachedHandle(plan: LabPlan, source?: ImageSource): Lab {
  const images = runsPods(plan)
    ? readImageList(fs.readFileSync((source ?? testbedImages()).list, "utf8"))
    : [];
  return labHandle(plan, images);
}

/**
 * A place in the lab's namespace and cgroup subtree for processes the lab does not start itself (e.g. a
 * test's hosts: their sshds and all they run), so that `stopLab` stops them with everything else.
 */
export function labPlace(plan: LabPlan, name: string): Place {
  const place = {
    netns: plan.netns,
    cgroup: `${plan.cgroup}/${name}`,
    runDir: path.join(plan.dir, "places", name),
  };
  preparePlace(place);
  return place;
}

/** What of a lab is still on the machine: processes, mounts, namespaces, cgroups, its uplink. */
export function labLeftovers(plan: LabPlan): string[] {
  const left: string[] = [];
  const pids = processesIn(plan.cgroup);
  if (pids.length) left.push(`processes ${pids.join(" ")} in cgroup ${plan.cgroup}`);
  for (const m of mountsBelow([plan.dir, `/run/${plan.netns}`])) left.push(`mount ${m}`);
  for (const ns of [plan.netns, ...plan.clusters.flatMap((c) => c.nodes.map((n) => n.netns))]) {
    if (namespaceExists(ns)) left.push(`network namespace ${NETNS_DIR}/${ns}`);
  }
  for (const h of cgroupHierarchies()) {
    const dir = path.join(h.mountPoint, absoluteCgroup(plan.cgroup));
    if (fs.existsSync(dir)) left.push(`cgroup ${dir}`);
  }
  if (fs.existsSync(`/sys/class/net/${plan.uplink.hostVeth}`)) left.push(`link ${plan.uplink.hostVeth}`);
  left.push(...machineLeftovers(plan));
  return left;
}

/**
 * Stops a lab: kills everything in its cgroup subtree (pods, shims, daemons, registry, control planes),
 * unmounts what its nodes mounted, deletes its namespaces (their nftables tables, veths and routes go
 * with them) and its run dirs; the lab dir too unless `keepDir`. Safe when nothing runs.
 */
export async function stopLab(plan: LabPlan, options: { readonly keepDir?: boolean } = {}): Promise<void> {
  await removeCgroupTree(plan.cgroup);
  cleanUpMachines(plan);
  const runRoot = `/run/${plan.netns}`;
  unmountBelow([plan.dir, runRoot]);
  for (const c of plan.clusters) for (const n of c.nodes) deleteNamespace(n.netns);
  deleteNamespace(plan.netns);
  // a deleted namespace lives on while an orphaned socket of it still closes: its end of the uplink with
  // it. This machine's end goes now (and its route with it).
  deleteLink(plan.uplink.hostVeth);
  fs.rmSync(runRoot, { recursive: true, force: true });
  if (!options.keepDir) fs.rmSync(plan.dir, { recursive: true, force: true });
  const left = labLeftovers(plan);
  if (left.length) throw new Error(`lab ${plan.name} left behind:\n  ${left.join("\n  ")}`);
}
