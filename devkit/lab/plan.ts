/**
 * The lab's plan: every name, address, range and directory of a lab of real Kubernetes nodes, derived once
 * from a small spec. Pure: nothing here touches the machine.
 *
 * A lab is one network namespace holding a bridge (`lab0`, 10.<octet>.0.0/24) that everything is wired to:
 * the image registry and each cluster's control-plane processes listen on addresses of that bridge, every
 * node is a network namespace of its own with a veth on it, and a veth pair connects the lab to this
 * machine's namespace (10.<octet>.255.0/30) so the engine and tests reach every address by a route. Pods
 * cannot reach an API server on this machine's own loopback, which is why nothing of a lab listens there.
 */
import * as path from "path";
import { validateDns1123Label } from "../../lib/validation/dns";
import { ConfigError, show } from "../../lib/validation/errors";

/** What a lab is asked for. */
export interface LabSpec {
  /** Short DNS label; names the lab's network namespaces, cgroups and run directory. */
  readonly name: string;
  /** Second octet of the lab's private range 10.<octet>.0.0/16 (each lab on a machine its own). */
  readonly octet: number;
  /** Directory holding every file of the lab (PKI, data, logs, pid files). */
  readonly dir: string;
  /** The clusters, in order: the first one's nodes get the lowest addresses. */
  readonly clusters: readonly ClusterSpec[];
  /** systemd machines on the lab bridge (devkit/lab/machine.ts), in address order. @default none */
  readonly machines?: readonly MachineSpec[];
}

/** One systemd machine of a lab. */
interface MachineSpec {
  /** DNS label of at most 20 characters: the machine's hostname, e.g. `etcd1`, `cp1`, `lb`. */
  readonly name: string;
}

/** A planned machine. */
export interface MachinePlan {
  /** Its hostname. */
  readonly name: string;
  /** Its address on the lab bridge (systemd-networkd inside gives it to `host0`). */
  readonly address: string;
  /** systemd-nspawn's machine name, unique on this machine: `<lab>-<name>`. */
  readonly nspawnName: string;
  /** Files of the machine: its overlay (upper, work, merged root) and its launcher's log. */
  readonly dir: string;
  /** Relative cgroup path of the machine (under the lab's): nspawn and everything the machine runs. */
  readonly cgroup: string;
}

/** One Kubernetes cluster of a lab. */
export interface ClusterSpec {
  /** DNS label, e.g. `host`, `member1`; node names are `<name>-n<index>`. */
  readonly name: string;
  /** How many nodes (kubelet + containerd + kube-proxy each); 0 for an API server alone. */
  readonly nodes: number;
}

/** A planned node. */
export interface NodePlan {
  /** Node name, `<cluster>-n<index>` (index from 1). */
  readonly name: string;
  readonly cluster: string;
  /** The node's address on the lab bridge (its InternalIP). */
  readonly address: string;
  /** The pods' range of this node (the bridge CNI's subnet). */
  readonly podCidr: string;
  /** Its network namespace (a file under /run/netns). */
  readonly netns: string;
  /** The lab-side end of its veth (≤ 15 characters). */
  readonly labVeth: string;
  /** Files of the node: configs, containerd's root, kubelet's root, pod logs, volumes. */
  readonly dir: string;
  /** containerd's state dir, sockets and pod network namespaces (short: a socket path has ≤ 107 bytes). */
  readonly stateDir: string;
  /** Relative cgroup path of the node (under the lab's); the pods' cgroup root. */
  readonly cgroup: string;
}

/** A planned cluster. */
export interface ClusterPlan {
  readonly name: string;
  /** Address on the lab bridge that etcd, kube-apiserver, the controller manager and scheduler bind. */
  readonly apiAddress: string;
  /** `https://<apiAddress>:6443`. */
  readonly server: string;
  /** Pod range of the whole cluster (the nodes' /24s are inside it). */
  readonly podCidr: string;
  readonly serviceCidr: string;
  /** The `kubernetes` Service's address: a SAN of the serving certificate. */
  readonly serviceIp: string;
  /** CoreDNS's Service address (kubelet's clusterDNS). */
  readonly dnsIp: string;
  readonly dir: string;
  readonly nodes: readonly NodePlan[];
}

/** The whole plan. */
export interface LabPlan {
  readonly name: string;
  readonly dir: string;
  /** The lab's network namespace. */
  readonly netns: string;
  readonly bridge: string;
  /** The bridge's address: the nodes' gateway and the registry's address. */
  readonly gateway: string;
  /** This machine's end of the uplink veth, and its address. */
  readonly uplink: { readonly hostVeth: string; readonly hostAddress: string; readonly labAddress: string };
  /** The lab's whole range: this machine routes it through the uplink. */
  readonly range: string;
  /** `host:port` of the image registry. */
  readonly registry: string;
  /** Relative cgroup path of the lab (under this process's own memory cgroup, see cgroups.ts). */
  readonly cgroup: string;
  readonly clusters: readonly ClusterPlan[];
  readonly machines: readonly MachinePlan[];
}

/** kube-apiserver's port on every cluster. */
export const API_PORT = 6443;
/** The registry's port on the lab gateway. */
const REGISTRY_PORT = 5000;
/** Each cluster's service range (ranges are per cluster: they never leave a node, so clusters may share one). */
const SERVICE_CIDR = "10.96.0.0/16";
const SERVICE_IP = "10.96.0.1";
const DNS_IP = "10.96.0.10";
/** Nodes per cluster: node addresses are 10.<o>.0.<11 + 10·cluster + index>. */
export const MAX_NODES_PER_CLUSTER = 9;
/** Clusters per lab: cluster API addresses are 10.<o>.0.<2 + cluster>, below the first node's .11. */
export const MAX_CLUSTERS = 9;
/** Machines per lab: machine addresses are 10.<o>.0.<101 + index>, above every node's. */
export const MAX_MACHINES = 50;
/** First machine's last octet. */
const FIRST_MACHINE = 101;

/** Validates `spec` (ConfigError naming the field) and derives the plan. */
export function planLab(spec: LabSpec): LabPlan {
  validateDns1123Label("name", spec.name);
  // veth names are ≤ 15 characters: `pk-<name>` on this machine's side
  if (spec.name.length > 12) {
    throw new ConfigError(
      "name",
      `${show(spec.name)} is longer than 12 characters`,
      "a short label, e.g. test",
    );
  }
  if (!Number.isInteger(spec.octet) || spec.octet < 1 || spec.octet > 254 || spec.octet === 96) {
    throw new ConfigError(
      "octet",
      `${show(spec.octet)} is not a usable second octet`,
      "an integer 1–254 but 96 (10.96.0.0/16 is every cluster's service range)",
    );
  }
  if (typeof spec.dir !== "string" || !path.isAbsolute(spec.dir)) {
    throw new ConfigError("dir", `${show(spec.dir)} is not an absolute path`);
  }
  const machineSpecs = spec.machines ?? [];
  if (
    !Array.isArray(spec.clusters) ||
    spec.clusters.length > MAX_CLUSTERS ||
    (spec.clusters.length === 0 && machineSpecs.length === 0)
  ) {
    throw new ConfigError(
      "clusters",
      `needs 1–${MAX_CLUSTERS} clusters (none when the lab has machines)`,
      "a list of { name, nodes }",
    );
  }
  if (!Array.isArray(machineSpecs) || machineSpecs.length > MAX_MACHINES) {
    throw new ConfigError("machines", `needs at most ${MAX_MACHINES} machines`, "a list of { name }");
  }
  const seen = new Set<string>();
  spec.clusters.forEach((c, i) => {
    validateDns1123Label(`clusters[${i}].name`, c.name);
    if (seen.has(c.name)) throw new ConfigError(`clusters[${i}].name`, `${show(c.name)} is used twice`);
    seen.add(c.name);
    if (!Number.isInteger(c.nodes) || c.nodes < 0 || c.nodes > MAX_NODES_PER_CLUSTER) {
      throw new ConfigError(`clusters[${i}].nodes`, `${show(c.nodes)} nodes`, `0–${MAX_NODES_PER_CLUSTER}`);
    }
  });

  const machineNames = new Set<string>();
  machineSpecs.forEach((m, i) => {
    validateDns1123Label(`machines[${i}].name`, m.name);
    if (m.name.length > 20) {
      throw new ConfigError(
        `machines[${i}].name`,
        `${show(m.name)} is longer than 20 characters`,
        "e.g. cp1",
      );
    }
    if (machineNames.has(m.name))
      throw new ConfigError(`machines[${i}].name`, `${show(m.name)} is used twice`);
    machineNames.add(m.name);
  });

  const net = (third: number, fourth: number) => `10.${spec.octet}.${third}.${fourth}`;
  const netns = `pk-${spec.name}`;
  const cgroup = `pk-${spec.name}`;
  const clusters = spec.clusters.map((c, ci): ClusterPlan => {
    const dir = path.join(spec.dir, "clusters", c.name);
    const nodes = Array.from({ length: c.nodes }, (_, ni): NodePlan => {
      const name = `${c.name}-n${ni + 1}`;
      return {
        name,
        cluster: c.name,
        address: net(0, 11 + 10 * ci + ni),
        podCidr: `${net(16 * (ci + 1) + ni, 0)}/24`,
        netns: `${netns}-${name}`,
        labVeth: `v${ci}-${ni + 1}`,
        dir: path.join(dir, "nodes", name),
        stateDir: `/run/${netns}/${name}`,
        cgroup: `${cgroup}/${name}`,
      };
    });
    const apiAddress = net(0, 2 + ci);
    return {
      name: c.name,
      apiAddress,
      server: `https://${apiAddress}:${API_PORT}`,
      podCidr: `${net(16 * (ci + 1), 0)}/20`,
      serviceCidr: SERVICE_CIDR,
      serviceIp: SERVICE_IP,
      dnsIp: DNS_IP,
      dir,
      nodes,
    };
  });
  const machines = machineSpecs.map((m, i): MachinePlan => ({
    name: m.name,
    address: net(0, FIRST_MACHINE + i),
    nspawnName: `${spec.name}-${m.name}`,
    dir: path.join(spec.dir, "machines", m.name),
    cgroup: `${cgroup}/machine-${m.name}`,
  }));
  const gateway = net(0, 1);
  return {
    name: spec.name,
    dir: spec.dir,
    netns,
    bridge: "lab0",
    gateway,
    uplink: { hostVeth: `pk-${spec.name}`, hostAddress: net(255, 1), labAddress: net(255, 2) },
    range: `10.${spec.octet}.0.0/16`,
    registry: `${gateway}:${REGISTRY_PORT}`,
    cgroup,
    clusters,
    machines,
  };
}

/** The machine named `name` of a plan; throws naming the machines there are. */
export function machineOf(plan: LabPlan, name: string): MachinePlan {
  const found = plan.machines.find((m) => m.name === name);
  if (!found) {
    throw new Error(
      `lab ${plan.name} has no machine ${name} (it has ${plan.machines.map((m) => m.name).join(", ") || "none"})`,
    );
  }
  return found;
}

/** The cluster named `name` of a plan; throws naming the clusters there are. */
export function clusterOf(plan: LabPlan, name: string): ClusterPlan {
  const found = plan.clusters.find((c) => c.name === name);
  if (!found) {
    throw new Error(
      `lab ${plan.name} has no cluster ${name} (it has ${plan.clusters.map((c) => c.name).join(", ")})`,
    );
  }
  return found;
}
