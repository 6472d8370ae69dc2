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
import { clusterFiles, issueClusterCredentials, startControlPlane } from "./controlPlane";
import { mountsBelow, unmountBelow } from "./mounts";
import { cleanUpMachines, machineAccess, MachineAccess, machineLeftovers, startMachines } from "./machine";
import { createLabNetwork, deleteLink, deleteNamespace, namespaceExists, NETNS_DIR } from "./network";
import { startNode } from "./node";
import { ClusterPlan, LabPlan, LabSpec, MachinePlan, machineOf, planLab } from "./plan";
import { Place, preparePlace } from "./place";
import { BuiltImage, ImageSource, pushImages, readImageList, startRegistry, testbedImages } from "./registry";

/** The file a started lab records its spec in (so another process can find, check and stop it). */
const SPEC_FILE = "lab.json";

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
export function imageIn(lab: LabPlan, images: readonly BuiltImage[], repository: string): string {
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
 * Starts a lab (a lab of the same name left over from an earlier run is removed first) and resolves once
 * every node is Ready, every cluster's DNS and storage are available and every machine is running. On
 * failure, what was started stays for inspection (logs under the lab dir); `stopLab` removes it.
 */
export async function startLab(spec: LabSpec, source?: ImageSource): Promise<Lab> {
  const plan = planLab(spec);
  await stopLab(plan, { keepDir: false });
  fs.mkdirSync(plan.dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(plan.dir, SPEC_FILE), `${JSON.stringify(spec, null, 2)}\n`);
  createLabNetwork(plan);
  const pushed = async () => {
    if (!runsPods(plan)) return [];
    await startRegistry(plan);
    return pushImages(plan, source ?? testbedImages());
  };
  const [images] = await Promise.all([
    pushed(),
    startMachines(plan),
    ...plan.clusters.map((c) => startClusterControlPlane(plan, c)),
  ]);
  await Promise.all(plan.clusters.map((c) => startNodesAndAddons(plan, c, images)));
  return labHandle(plan, images);
}

// The control planes start while the images are pushed; nodes need the images (the pause image first).
async function startClusterControlPlane(plan: LabPlan, cluster: ClusterPlan): Promise<void> {
  issueClusterCredentials(cluster);
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

/** The handle of the lab recorded in `dir`, when it is up (its registry's list is read back). */
export function attachLab(dir: string, source?: ImageSource): Lab | undefined {
  const spec = recordedSpec(dir);
  if (!spec) return undefined;
  const plan = planLab(spec);
  if (!namespaceExists(plan.netns) || processesIn(plan.cgroup).length === 0) return undefined;
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
