/**
 * The configuration files of one node, rendered from its plan: containerd's config and its registry
 * host file, the bridge CNI network, the KubeletConfiguration and the KubeProxyConfiguration. Pure.
 *
 * Several nodes share one machine, so everything a node writes outside its own directories is made its
 * own here: containerd's root, state and socket; the CNI IPAM store; kubelet's root and pod-log dirs (a
 * kubelet deletes pod logs it does not know); the pods' cgroup root.
 */
import * as path from "path";
import type { LabPlan, NodePlan } from "./plan";

/** Where a node's files are. */
export interface NodeFiles {
  readonly containerdConfig: string;
  readonly containerdRoot: string;
  readonly containerdSocket: string;
  /** containerd's registry host files (`<dir>/<host:port>/hosts.toml`). */
  readonly registryHostsDir: string;
  readonly cniConfDir: string;
  readonly cniIpamDir: string;
  readonly kubeletConfig: string;
  readonly kubeletKubeconfig: string;
  readonly kubeletRoot: string;
  readonly podLogsDir: string;
  /** resolv.conf for pods with `dnsPolicy: Default` (and CoreDNS's own): no upstream resolver here. */
  readonly resolvConf: string;
  readonly kubeProxyConfig: string;
  readonly kubeProxyKubeconfig: string;
  /** Node-local volumes of the local-path provisioner. */
  readonly volumesDir: string;
  /** Logs and pid files of the node's processes. */
  readonly runDir: string;
}

/** The file layout of a node (under its `dir` and `stateDir`). */
export function nodeFiles(node: NodePlan): NodeFiles {
  const at = (...p: string[]) => path.join(node.dir, ...p);
  return {
    containerdConfig: at("containerd.toml"),
    containerdRoot: at("containerd"),
    containerdSocket: path.join(node.stateDir, "containerd.sock"),
    registryHostsDir: at("certs.d"),
    cniConfDir: at("cni"),
    cniIpamDir: at("cni-ipam"),
    kubeletConfig: at("kubelet.yaml"),
    kubeletKubeconfig: at("kubelet.kubeconfig"),
    kubeletRoot: at("kubelet"),
    podLogsDir: at("pod-logs"),
    resolvConf: at("resolv.conf"),
    kubeProxyConfig: at("kube-proxy.yaml"),
    kubeProxyKubeconfig: at("kube-proxy.kubeconfig"),
    volumesDir: at("volumes"),
    runDir: at("run"),
  };
}

/** containerd's config (version 2, as containerd 1.6 reads it). */
export function containerdConfig(node: NodePlan, pauseImage: string): string {
  const f = nodeFiles(node);
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    "version = 2",
    `root = ${JSON.stringify(f.containerdRoot)}`,
    `state = ${JSON.stringify(path.join(node.stateDir, "containerd"))}`,
    "[grpc]",
    `  address = ${JSON.stringify(f.containerdSocket)}`,
    `[${cri}]`,
    `  sandbox_image = ${JSON.stringify(pauseImage)}`,
    // no CAP_SYS_RESOURCE here: without this every pod fails in runc ("can't get final child's PID")
    "  restrict_oom_score_adj = true",
    // pods' network namespaces under the node's state dir, so tearing the node down finds all of them
    "  netns_mounts_under_state_dir = true",
    `[${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    "  SystemdCgroup = false",
    `  Root = ${JSON.stringify(path.join(node.stateDir, "runc"))}`,
    `[${cri}.cni]`,
    '  bin_dir = "/usr/lib/cni"',
    `  conf_dir = ${JSON.stringify(f.cniConfDir)}`,
    `[${cri}.registry]`,
    `  config_path = ${JSON.stringify(f.registryHostsDir)}`,
    "",
  ].join("\n");
}

/** containerd's host file for the lab registry: plain HTTP, pull and resolve. */
export function registryHostsToml(lab: LabPlan): string {
  return [
    `server = "http://${lab.registry}"`,
    `[host."http://${lab.registry}"]`,
    '  capabilities = ["pull", "resolve"]',
    "",
  ].join("\n");
}

/** The bridge CNI network: one /24 per node, the bridge the pods' gateway, routed (no NAT) by the lab. */
export function cniConflist(node: NodePlan): string {
  return `${JSON.stringify(
    {
      cniVersion: "1.0.0",
      name: "lab",
      plugins: [
        {
          type: "bridge",
          bridge: "cni0",
          isGateway: true,
          ipMasq: false,
          // a pod reaching a Service whose endpoint is itself
          hairpinMode: true,
          ipam: {
            type: "host-local",
            ranges: [[{ subnet: node.podCidr }]],
            routes: [{ dst: "0.0.0.0/0" }],
            dataDir: nodeFiles(node).cniIpamDir,
          },
        },
      ],
    },
    null,
    2,
  )}\n`;
}

/** What the kubelet config needs besides the node's plan. */
export interface KubeletInputs {
  /** Absolute cgroup path of the node (the pods' cgroup root). */
  readonly cgroupRoot: string;
  /** The cluster CA file, which client certificates (the API server's) are checked against. */
  readonly clientCaFile: string;
  readonly dnsIp: string;
}

/** KubeletConfiguration (kubelet.config.k8s.io/v1beta1) as JSON (YAML 1.2 reads it). */
export function kubeletConfig(node: NodePlan, inputs: KubeletInputs): string {
  const f = nodeFiles(node);
  return `${JSON.stringify(
    {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      // this machine has cgroup v1 (hybrid); kubelet 1.35 refuses it unless told
      failCgroupV1: false,
      cgroupDriver: "cgroupfs",
      cgroupRoot: inputs.cgroupRoot,
      failSwapOn: false,
      containerRuntimeEndpoint: `unix://${f.containerdSocket}`,
      address: node.address,
      healthzBindAddress: node.address,
      readOnlyPort: 0,
      podLogsDir: f.podLogsDir,
      clusterDNS: [inputs.dnsIp],
      clusterDomain: "cluster.local",
      resolvConf: f.resolvConf,
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: true },
        x509: { clientCAFile: inputs.clientCaFile },
      },
      authorization: { mode: "Webhook" },
      serializeImagePulls: false,
      // the machine's disk is shared by every node: never evict or collect images for its fill level
      evictionHard: { "memory.available": "100Mi" },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      // no iptables rules from kubelet: kube-proxy runs in nftables mode
      makeIPTablesUtilChains: false,
    },
    null,
    2,
  )}\n`;
}

/** KubeProxyConfiguration in nftables mode (its own tables, in the node's namespace only). */
export function kubeProxyConfig(node: NodePlan, clusterPodCidr: string): string {
  const f = nodeFiles(node);
  return `${JSON.stringify(
    {
      apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
      kind: "KubeProxyConfiguration",
      mode: "nftables",
      clientConnection: { kubeconfig: f.kubeProxyKubeconfig },
      hostnameOverride: node.name,
      bindAddress: node.address,
      healthzBindAddress: `${node.address}:10256`,
      metricsBindAddress: `${node.address}:10249`,
      clusterCIDR: clusterPodCidr,
      nodePortAddresses: [`${node.address}/32`],
      // conntrack limits are machine-wide: leave them alone
      conntrack: { maxPerCore: 0 },
    },
    null,
    2,
  )}\n`;
}
