/**
 * The lab's network, made with iproute2: the lab namespace with its bridge and the uplink to this
 * machine, one namespace per node with a veth on the bridge, and the routes between them (the lab routes
 * each node's pod /24 to that node; this machine routes the lab's /16 through the uplink). Commands run
 * inside a namespace with `nsenter --net` (not `ip netns exec`, which remounts /sys and would hide the
 * cgroup mounts from what it runs).
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import type { LabPlan, NodePlan } from "./plan";

/** Where iproute2 keeps named network namespaces. */
export const NETNS_DIR = "/run/netns";

/** `nsenter --net=<namespace>` as a command prefix. */
export function inNamespace(netns: string): string[] {
  return ["nsenter", `--net=${NETNS_DIR}/${netns}`];
}

function run(command: string[]): void {
  try {
    execFileSync(command[0], command.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`${command.join(" ")}: ${stderr || (e as Error).message}`);
  }
}

const within = (netns: string, ...command: string[]) => run([...inNamespace(netns), ...command]);

/** Whether the named network namespace exists. */
export function namespaceExists(netns: string): boolean {
  return fs.existsSync(`${NETNS_DIR}/${netns}`);
}

/** Creates the lab namespace, its bridge with the gateway and every cluster's API address, and the uplink. */
export function createLabNetwork(lab: LabPlan): void {
  run(["ip", "netns", "add", lab.netns]);
  within(lab.netns, "ip", "link", "set", "lo", "up");
  within(lab.netns, "ip", "link", "add", lab.bridge, "type", "bridge");
  within(lab.netns, "ip", "addr", "add", `${lab.gateway}/24`, "dev", lab.bridge);
  for (const c of lab.clusters)
    within(lab.netns, "ip", "addr", "add", `${c.apiAddress}/24`, "dev", lab.bridge);
  within(lab.netns, "ip", "link", "set", lab.bridge, "up");
  within(lab.netns, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
  run([
    "ip",
    "link",
    "add",
    lab.uplink.hostVeth,
    "type",
    "veth",
    "peer",
    "name",
    "uplink",
    "netns",
    `${NETNS_DIR}/${lab.netns}`,
  ]);
  run(["ip", "addr", "add", `${lab.uplink.hostAddress}/30`, "dev", lab.uplink.hostVeth]);
  run(["ip", "link", "set", lab.uplink.hostVeth, "up"]);
  within(lab.netns, "ip", "addr", "add", `${lab.uplink.labAddress}/30`, "dev", "uplink");
  within(lab.netns, "ip", "link", "set", "uplink", "up");
  run(["ip", "route", "add", lab.range, "via", lab.uplink.labAddress]);
}

/**
 * Creates a node's namespace wired to the lab bridge: its address, the lab gateway as default route,
 * forwarding on, bridged traffic through the netfilter hooks (so kube-proxy's DNAT also applies between
 * two pods of one bridge), and the lab's route to its pods.
 */
export function createNodeNetwork(lab: LabPlan, node: NodePlan): void {
  run(["ip", "netns", "add", node.netns]);
  within(
    lab.netns,
    "ip",
    "link",
    "add",
    node.labVeth,
    "type",
    "veth",
    "peer",
    "name",
    "eth0",
    "netns",
    `${NETNS_DIR}/${node.netns}`,
  );
  within(lab.netns, "ip", "link", "set", node.labVeth, "master", lab.bridge, "up");
  within(node.netns, "ip", "link", "set", "lo", "up");
  within(node.netns, "ip", "addr", "add", `${node.address}/24`, "dev", "eth0");
  within(node.netns, "ip", "link", "set", "eth0", "up");
  within(node.netns, "ip", "route", "add", "default", "via", lab.gateway);
  within(node.netns, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1", "net.bridge.bridge-nf-call-iptables=1");
  within(lab.netns, "ip", "route", "add", node.podCidr, "via", node.address);
}

/**
 * Deletes a link of this machine's namespace, if it exists (a veth's peer goes with it). It may vanish
 * on its own meanwhile (its peer's namespace finishing its cleanup): that is not an error.
 */
export function deleteLink(name: string): void {
  if (!fs.existsSync(`/sys/class/net/${name}`)) return;
  try {
    run(["ip", "link", "delete", name]);
  } catch (e) {
    if (fs.existsSync(`/sys/class/net/${name}`)) throw e;
  }
}

/** Deletes a namespace (its veths go with it; the lab's route to the node's pods goes with the veth). */
export function deleteNamespace(netns: string): void {
  if (namespaceExists(netns)) run(["ip", "netns", "delete", netns]);
}

/**
 * Adds `address` to the lab namespace (idempotent), for something of this machine's to live on the lab's
 * network — e.g. test hosts whose sshd runs in the lab namespace. On `lo` as a /32, not on the bridge:
 * a second address of the bridge's /24 would make the kernel pick the gateway's as the source of every
 * connection between two such addresses, so TLS peers checking a client's IP (etcd) would refuse it;
 * on `lo`, a connection to the address comes from the address itself. Reached from the nodes as any
 * address of the lab namespace. Gone with the lab.
 */
export function addLabAddress(lab: LabPlan, address: string): void {
  const present = execFileSync(
    inNamespace(lab.netns)[0],
    [...inNamespace(lab.netns).slice(1), "ip", "-o", "addr", "show", "dev", "lo"],
    {
      encoding: "utf8",
    },
  );
  if (!present.includes(` ${address}/`)) within(lab.netns, "ip", "addr", "add", `${address}/32`, "dev", "lo");
}
