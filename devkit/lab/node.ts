/**
 * One node of a lab cluster: its own network namespace on the lab bridge, and in its own cgroup subtree
 * containerd (Debian's, with runc and the CNI plugins), kubelet and kube-proxy (nftables mode) built by
 * the test bed. Images come only from the lab registry: nothing is preloaded.
 */
import * as fs from "fs";
import * as path from "path";
import { ApiCredentials } from "../kubeClient";
import { callApi } from "../../lib/kube/rest";
import { currentEnv, requireBinary } from "../testbed";
import { absoluteCgroup } from "./cgroups";
import { adminCredentials, awaitProcess, clusterFiles } from "./controlPlane";
import { createNodeNetwork } from "./network";
import {
  cniConflist,
  containerdConfig,
  kubeProxyConfig,
  kubeletConfig,
  nodeFiles,
  registryHostsToml,
} from "./nodeConfig";
import type { ClusterPlan, LabPlan, NodePlan } from "./plan";
import { Place, preparePlace, startIn } from "./place";
import type { BackgroundProcess } from "../processes";

/** The daemons of a node, by the names of their pid and log files. */
export const NODE_PROCESSES = ["containerd", "kubelet", "kube-proxy"] as const;

/** The place of a node's daemons (their pods go in sibling cgroups kubelet makes under the node's). */
export function nodePlace(node: NodePlan): Place {
  return { netns: node.netns, cgroup: `${node.cgroup}/daemons`, runDir: nodeFiles(node).runDir };
}

/** Writes every config file of the node (its client certificates come from the cluster's PKI). */
function writeNodeFiles(lab: LabPlan, cluster: ClusterPlan, node: NodePlan, pauseImage: string): void {
  const f = nodeFiles(node);
  const c = clusterFiles(cluster);
  for (const dir of [node.dir, node.stateDir, f.cniConfDir, f.podLogsDir, f.volumesDir, f.runDir]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  // the local-path provisioner's helper pods run as root; the volumes' parent must be reachable by pods
  fs.chmodSync(f.volumesDir, 0o755);
  const write = (file: string, text: string, mode = 0o600) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode });
  };
  write(f.containerdConfig, containerdConfig(node, pauseImage));
  write(path.join(f.registryHostsDir, lab.registry, "hosts.toml"), registryHostsToml(lab));
  write(path.join(f.cniConfDir, "10-lab.conflist"), cniConflist(node));
  // no resolver is reachable from the lab: pods that ask the node's resolver get an answer only from CoreDNS
  write(f.resolvConf, `nameserver ${cluster.dnsIp}\n`, 0o644);
  write(
    f.kubeletConfig,
    kubeletConfig(node, {
      cgroupRoot: absoluteCgroup(node.cgroup),
      clientCaFile: c.caCert,
      dnsIp: cluster.dnsIp,
    }),
  );
  fs.copyFileSync(c.kubeconfig(`node-${node.name}`), f.kubeletKubeconfig);
  write(f.kubeProxyConfig, kubeProxyConfig(node, cluster.podCidr));
  fs.copyFileSync(c.kubeconfig("kube-proxy"), f.kubeProxyKubeconfig);
}

/** Whether the Node object reports Ready. */
export async function nodeReady(creds: ApiCredentials, name: string): Promise<boolean> {
  const res = await callApi(creds, "GET", `/api/v1/nodes/${name}`);
  if (res.status !== 200) return false;
  const conditions = (res.body.status?.conditions ?? []) as { type: string; status: string }[];
  return conditions.some((cond) => cond.type === "Ready" && cond.status === "True");
}

/**
 * Every kubelet serves its device-plugin registration socket at this path whatever its `--root-dir` (the
 * path is compiled in), and deletes the sockets there before binding: two kubelets starting at once can
 * both delete, then one fails to bind ("address already in use") and exits. The lab's nodes share the
 * machine's filesystem, so their kubelets start one at a time.
 */
const DEVICE_PLUGIN_SOCKET = "/var/lib/kubelet/device-plugins/kubelet.sock";
/** The last kubelet start of this process: the next waits for it. */
let kubeletStarting: Promise<unknown> = Promise.resolve();

/** Change time of the device-plugin socket, or 0 while there is none. */
const socketChangedMs = () => {
  try {
    return fs.statSync(DEVICE_PLUGIN_SOCKET).ctimeMs;
  } catch {
    return 0;
  }
};

/**
 * Starts a kubelet once no other kubelet of this lab is starting, and returns once it has bound its
 * device-plugin socket (the socket is newer than its start).
 */
async function startKubeletAlone(
  name: string,
  start: () => BackgroundProcess,
  timeoutMs: number,
): Promise<BackgroundProcess> {
  const previous = kubeletStarting;
  let done!: () => void;
  kubeletStarting = new Promise<void>((resolve) => (done = resolve));
  try {
    await previous;
    const startedMs = Date.now();
    const kubelet = start();
    await awaitProcess(
      `${name}: device-plugin socket`,
      kubelet,
      async () => socketChangedMs() > startedMs,
      timeoutMs,
    );
    return kubelet;
  } finally {
    done();
  }
}

/** Starts the node (network, containerd, kubelet, kube-proxy) and resolves once the Node is Ready. */
export async function startNode(
  lab: LabPlan,
  cluster: ClusterPlan,
  node: NodePlan,
  pauseImage: string,
  timeoutMs = 120_000,
): Promise<void> {
  const env = currentEnv();
  const f = nodeFiles(node);
  writeNodeFiles(lab, cluster, node, pauseImage);
  createNodeNetwork(lab, node);
  const place = nodePlace(node);
  preparePlace(place);

  const containerd = startIn(
    place,
    "containerd",
    requireBinary("containerd"),
    ["--config", f.containerdConfig],
    env,
  );
  await awaitProcess(
    `node ${node.name}: containerd socket`,
    containerd,
    async () => fs.existsSync(f.containerdSocket),
    timeoutMs,
  );
  const kubelet = await startKubeletAlone(
    `node ${node.name}`,
    () =>
      startIn(
        place,
        "kubelet",
        requireBinary("kubelet"),
        [
          `--config=${f.kubeletConfig}`,
          `--kubeconfig=${f.kubeletKubeconfig}`,
          `--hostname-override=${node.name}`,
          `--node-ip=${node.address}`,
          `--root-dir=${f.kubeletRoot}`,
          `--node-labels=lab.pulumi-karmada.dev/cluster=${cluster.name}`,
        ],
        env,
      ),
    timeoutMs,
  );
  startIn(place, "kube-proxy", requireBinary("kube-proxy"), [`--config=${f.kubeProxyConfig}`], env);
  const creds = adminCredentials(cluster);
  await awaitProcess(`node ${node.name}: Ready`, kubelet, () => nodeReady(creds, node.name), timeoutMs);
}
