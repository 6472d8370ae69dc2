/**
 * TEST BED ONLY: the machines, network and member clusters of the local estate — a lab of the test bed
 * (devkit/lab) holding systemd machines (etcd1-3, cp1-2 as Pulumi.local.yaml lists them, and `lb`, the
 * load balancer), one kube-apiserver per member cluster, and the offline artifact mirror on the lab's
 * gateway. Machines boot systemd as PID 1 and run OpenSSH with host keys the stack pins; they have no
 * network beyond the lab. HAProxy on `lb` health-checks the control-plane machines and is the estate's
 * external endpoint. Where everything is comes from Pulumi.local.yaml and must match the lab's plan (a
 * clear error says what differs). Starting again reuses a lab that still runs, boots one that lost its
 * processes (a reboot) from its disks, and makes a new one only when there was none or half of one.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse } from "yaml";
import { clusterFiles } from "../lab/controlPlane";
import { ensureLab, Lab, LabStart, labPlace, recordedSpec, stopLab } from "../lab/lab";
import { CONTROL_PLANE_PORTS, haproxyConfig } from "../lab/loadBalancer";
import { machineAccess, machineFiles, machineHostKey, onMachine } from "../lab/machine";
import { clusterOf, LabPlan, LabSpec, machineOf, MachinePlan, planLab } from "../lab/plan";
import { startIn } from "../lab/place";
import { portOpen, waitForPort } from "../hosts/testbed";
import { REPO_ROOT, reportedVersion, requireBinary, testbedEnv } from "../testbed";
import { execFileSync } from "child_process";
import { MirroredArtifact, packMirror } from "./mirror";

/** The stack settings file of the local estate. */
export const LOCAL_STACK_FILE = path.join(REPO_ROOT, "Pulumi.local.yaml");

/** The lab of the local estate (its network namespace is `pk-local`, its machines `local-<name>`). */
const LAB_NAME = "local";
/** The machine running the load balancer; its address is the external endpoint's host. */
export const LOAD_BALANCER = "lb";
/** The mirror's port on the lab gateway. */
const MIRROR_PORT = 8080;

/** A machine of the estate as the stack settings name it. */
interface HostAddress {
  readonly name: string;
  readonly address: string;
  readonly port: number;
}

/** A member cluster as the stack settings name it. */
interface MemberAddress {
  readonly clusterName: string;
  readonly mode: "Push" | "Pull";
  readonly apiEndpoint: string;
}

/** Where every part of the estate is (read from Pulumi.local.yaml). */
export interface EstateLayout {
  readonly etcdHosts: readonly HostAddress[];
  readonly controlPlaneHosts: readonly HostAddress[];
  /** The load balancer's address (the host part of `controlPlane.apiServer.externalEndpoint`). */
  readonly vip: string;
  readonly members: readonly MemberAddress[];
}

/** A running machine of the estate. */
export interface BedHost extends HostAddress {
  /** The lab machine. */
  readonly machine: MachinePlan;
  /** The machine's root filesystem as seen from this machine (its disk, for checks; `/` inside). */
  readonly files: string;
  /** Its pinned SSH host key (`ssh-ed25519 AAAA…`). */
  readonly hostKey: string;
}

/** A running member cluster. */
export interface BedMember extends MemberAddress {
  readonly address: string;
  readonly server: string;
  /** Admin kubeconfig of the member (a credential: mode 0600). */
  readonly kubeconfigPath: string;
}

/** The running bed. */
export interface Bed {
  readonly dir: string;
  readonly layout: EstateLayout;
  /** The lab everything runs in. */
  readonly lab: Lab;
  /** How the lab came up: found running, booted again from its disks, or new (empty disks). */
  readonly labStart: LabStart;
  readonly etcdHosts: readonly BedHost[];
  readonly controlPlaneHosts: readonly BedHost[];
  /** The load balancer's machine. */
  readonly loadBalancer: BedHost;
  /** Machines booted beside the estate's, unused until a drill lists one (e.g. to replace a lost one). */
  readonly spares: readonly BedHost[];
  /** The SSH private key every machine accepts (the lab's; mode 0600). */
  readonly sshKeyPath: string;
  /** Binary tarballs on the mirror by name (`etcd`, `kube-apiserver`, `karmada-scheduler`, …). */
  readonly artifacts: Readonly<Record<string, MirroredArtifact>>;
  /** The test bed's etcd version, e.g. `v3.5.21`. */
  readonly etcdVersion: string;
  /** The test bed's Karmada CRD bundle (crds.tar.gz). */
  readonly crds: string;
  readonly members: readonly BedMember[];
  /** The oldest catalog release, when the test bed has built it (the version-upgrade drill). */
  readonly previousRelease?: PreviousRelease;
}

/** An older Karmada release on the mirror: binaries, the kube they pair with, the CRD bundle. */
export interface PreviousRelease {
  /** Karmada version its binaries report, e.g. `v1.16.0`. */
  readonly karmadaVersion: string;
  /** kube-apiserver / kube-controller-manager version they report, e.g. `v1.34.1`. */
  readonly kubernetesVersion: string;
  /** Tarballs on the mirror by binary name, as {@link Bed.artifacts} (no etcd: it is not upgraded). */
  readonly artifacts: Readonly<Record<string, MirroredArtifact>>;
  /** Its CRD bundle (crds.tar.gz). */
  readonly crds: string;
  /** Directory of its Karmada binaries (karmada-agent, karmadactl, …). */
  readonly karmadaBin: string;
}

/** The estate's layout from a stack settings file (default Pulumi.local.yaml). */
export function readLayout(file = LOCAL_STACK_FILE): EstateLayout {
  const config = parse(fs.readFileSync(file, "utf8")).config;
  const host = (h: HostAddress): HostAddress => ({ name: h.name, address: h.address, port: h.port ?? 22 });
  const endpoint: string = config["karmada:controlPlane"].apiServer.externalEndpoint;
  return {
    etcdHosts: config["karmada:etcd"].hosts.hosts.map(host),
    controlPlaneHosts: config["karmada:controlPlane"].hosts.machines.map(host),
    vip: endpoint.slice(0, endpoint.lastIndexOf(":")),
    members: config["karmada:members"],
  };
}

/**
 * The lab holding `layout` in `<dir>/lab`: its member clusters (API servers only), and machines in
 * address order — etcd hosts, control-plane hosts, the load balancer, then `spares`. Throws when the
 * layout's addresses are not the ones the lab gives (the settings and the lab must agree).
 */
export function bedLabSpec(dir: string, layout: EstateLayout, spares: readonly string[] = []): LabSpec {
  const octet = /^10\.(\d+)\.0\.\d+$/.exec(layout.vip)?.[1];
  if (!octet) throw new Error(`the external endpoint ${layout.vip} is not a lab address (10.<octet>.0.<n>)`);
  const hosts = [...layout.etcdHosts, ...layout.controlPlaneHosts];
  const spec: LabSpec = {
    name: LAB_NAME,
    octet: Number(octet),
    dir: path.join(dir, "lab"),
    clusters: layout.members.map((m) => ({ name: m.clusterName, nodes: 0 })),
    machines: [...hosts.map((h) => h.name), LOAD_BALANCER, ...spares].map((name) => ({ name })),
  };
  const plan = planLab(spec);
  const wrong = [
    ...hosts.map((h) => [
      `host ${h.name}`,
      `${h.address}:${h.port}`,
      `${machineOf(plan, h.name).address}:22`,
    ]),
    ["the external endpoint (load balancer)", layout.vip, machineOf(plan, LOAD_BALANCER).address],
    ...layout.members.map((m) => [
      `member ${m.clusterName}`,
      m.apiEndpoint,
      clusterOf(plan, m.clusterName).server,
    ]),
  ].filter(([, given, planned]) => given !== planned);
  if (wrong.length) {
    throw new Error(
      `${LOCAL_STACK_FILE} does not match the lab's addresses:\n${wrong
        .map(([what, given, planned]) => `  ${what}: ${given}, the lab has ${planned}`)
        .join("\n")}`,
    );
  }
  return spec;
}

/** Binaries of the test bed the mirror carries, one tarball each (etcd's three in one). */
const MIRRORED: Readonly<Record<string, readonly string[]>> = {
  etcd: ["etcd", "etcdctl", "etcdutl"],
  "kube-apiserver": ["kube-apiserver"],
  "kube-controller-manager": ["kube-controller-manager"],
  "karmada-aggregated-apiserver": ["karmada-aggregated-apiserver"],
  "karmada-controller-manager": ["karmada-controller-manager"],
  "karmada-scheduler": ["karmada-scheduler"],
  "karmada-webhook": ["karmada-webhook"],
};

/**
 * The previous release the test bed built (scripts/testbed/build.sh kube-previous karmada-previous), packed
 * onto the mirror as `<binary>-<version>.tar.gz`; undefined when it is not built.
 */
function previousRelease(mirrorDir: string, baseUrl: string): PreviousRelease | undefined {
  const { env } = testbedEnv();
  const kubeBin = env.TESTBED_KUBE_PREVIOUS_BIN;
  const karmadaBin = env.TESTBED_KARMADA_PREVIOUS_BIN;
  const built = (bin: string | undefined) => !!bin && fs.existsSync(path.join(path.dirname(bin), ".done"));
  if (!built(kubeBin) || !built(karmadaBin)) return undefined;
  const karmadaVersion = reportedVersion(path.join(karmadaBin, "karmada-scheduler"), "karmada");
  const kubernetesVersion = reportedVersion(path.join(kubeBin, "kube-apiserver"), "kubernetes");
  const sources = Object.entries(MIRRORED)
    .filter(([name]) => name !== "etcd")
    .map(([name, files]) => {
      const kube = name.startsWith("kube-");
      const version = kube ? kubernetesVersion : karmadaVersion;
      return [`${name}-${version}`, { dir: kube ? kubeBin! : karmadaBin!, files }] as const;
    });
  const packed = packMirror(mirrorDir, baseUrl, Object.fromEntries(sources));
  return {
    karmadaVersion,
    kubernetesVersion,
    artifacts: Object.fromEntries(
      sources.map(([tarball]) => [tarball.replace(/-v[^-]+$/, ""), packed[tarball]]),
    ),
    crds: path.join(path.dirname(karmadaBin!), "crds.tar.gz"),
    karmadaBin: karmadaBin!,
  };
}

/** The version `etcd --version` reports, as `vX.Y.Z`. */
function etcdVersion(): string {
  const out = execFileSync(requireBinary("etcd"), ["--version"], { encoding: "utf8" });
  const match = /etcd Version: (\S+)/.exec(out);
  if (!match) throw new Error(`cannot read the etcd version from: ${out.slice(0, 200)}`);
  return `v${match[1]}`;
}

/** The test bed's Karmada CRD bundle. */
function crdBundle(): string {
  const bundle = path.join(path.dirname(path.dirname(requireBinary("karmadactl"))), "crds.tar.gz");
  if (!fs.existsSync(bundle)) throw new Error(`${bundle} is missing: run scripts/testbed/build.sh karmada`);
  return bundle;
}

/** Where the mirror's tarballs are cached (shared by every bed on the machine). */
const mirrorCacheDir = () =>
  path.join(
    process.env.PULUMI_KARMADA_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-karmada"),
    "sandbox-mirror",
  );

const MIRROR_SERVER = path.join(__dirname, "mirror-server.ts");

/** Starts the mirror in the lab (on its gateway) unless it answers there already. */
async function startMirror(plan: LabPlan, mirrorDir: string): Promise<void> {
  if (await portOpen(plan.gateway, MIRROR_PORT)) return;
  const tsNode = path.join(REPO_ROOT, "node_modules", "ts-node", "dist", "bin.js");
  startIn(
    labPlace(plan, "mirror"),
    "mirror",
    process.execPath,
    [tsNode, "--transpile-only", MIRROR_SERVER, mirrorDir, plan.gateway, String(MIRROR_PORT)],
    { PATH: process.env.PATH ?? "" },
  );
  await waitForPort(plan.gateway, MIRROR_PORT, 30_000);
}

/**
 * Configures HAProxy on the load balancer for `backends` and (re)loads it: a reload keeps the connections
 * it has. The configuration is checked by `haproxy -c` on the machine before it replaces the old one.
 */
async function configureLoadBalancer(plan: LabPlan, backends: readonly HostAddress[]): Promise<void> {
  const lb = machineOf(plan, LOAD_BALANCER);
  const config = Buffer.from(haproxyConfig(lb.address, backends)).toString("base64");
  await onMachine(
    plan,
    lb,
    [
      "set -e",
      `echo ${config} | base64 -d > /etc/haproxy/haproxy.cfg.new`,
      "haproxy -c -q -f /etc/haproxy/haproxy.cfg.new",
      "mv /etc/haproxy/haproxy.cfg.new /etc/haproxy/haproxy.cfg",
      "systemctl enable --quiet haproxy",
      "systemctl reload-or-restart haproxy",
    ].join("\n"),
  );
  for (const p of CONTROL_PLANE_PORTS) await waitForPort(lb.address, p.listenPort, 30_000);
}

/** A lab machine as a host of the estate. */
function bedHost(plan: LabPlan, name: string): BedHost {
  const machine = machineOf(plan, name);
  return {
    name,
    address: machine.address,
    port: 22,
    machine,
    files: machineFiles(machine).root,
    hostKey: machineHostKey(machine).split(" ").slice(0, 2).join(" "),
  };
}

/**
 * A new control-plane machine (a spare of the bed) in place of `lost` (a machine gone for good): the load
 * balancer's pool changed to the machines left plus the new one, as an operator changes theirs. Returns
 * the bed with the new machine.
 */
export async function replaceControlPlaneHost(bed: Bed, lost: string, replacement: string): Promise<Bed> {
  const host = bed.spares.find((h) => h.name === replacement);
  if (!host) throw new Error(`the bed has no spare machine ${replacement}`);
  const controlPlaneHosts = [...bed.controlPlaneHosts.filter((h) => h.name !== lost), host];
  const layout: EstateLayout = {
    ...bed.layout,
    controlPlaneHosts: controlPlaneHosts.map(({ name, address, port }) => ({ name, address, port })),
  };
  await configureLoadBalancer(bed.lab.plan, layout.controlPlaneHosts);
  return { ...bed, layout, controlPlaneHosts, spares: bed.spares.filter((h) => h !== host) };
}

/** Options of {@link startBed}. */
export interface BedOptions {
  /** Machines booted beside the estate's for drills (see {@link Bed.spares}). @default none */
  readonly spares?: readonly string[];
  /** Called before a new lab replaces what is in the bed's lab dir (see `ensureLab`). */
  readonly beforeNewLab?: (reason: string) => void | Promise<void>;
  /** Told how the lab comes up. */
  readonly log?: (message: string) => void;
}

/** Starts the bed in `dir` (or finds its lab running) and describes it. */
export async function startBed(
  dir: string,
  layout: EstateLayout = readLayout(),
  options: BedOptions = {},
): Promise<Bed> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const spec = bedLabSpec(dir, layout, options.spares);
  const { lab, start } = await ensureLab(spec, { beforeNew: options.beforeNewLab, log: options.log });
  const plan = lab.plan;
  const mirrorDir = mirrorCacheDir();
  const mirrorUrl = `http://${plan.gateway}:${MIRROR_PORT}`;
  const artifacts = packMirror(
    mirrorDir,
    mirrorUrl,
    Object.fromEntries(
      Object.entries(MIRRORED).map(([name, files]) => [
        name,
        { dir: path.dirname(requireBinary(files[0])), files },
      ]),
    ),
  );
  await startMirror(plan, mirrorDir);
  await configureLoadBalancer(plan, layout.controlPlaneHosts);
  const members = layout.members.map((m): BedMember => {
    const cluster = clusterOf(plan, m.clusterName);
    return {
      ...m,
      address: cluster.apiAddress,
      server: cluster.server,
      kubeconfigPath: clusterFiles(cluster).kubeconfig("admin"),
    };
  });
  const hosts = (list: readonly HostAddress[]) => list.map((h) => bedHost(plan, h.name));
  return {
    dir,
    layout,
    lab,
    labStart: start,
    etcdHosts: hosts(layout.etcdHosts),
    controlPlaneHosts: hosts(layout.controlPlaneHosts),
    loadBalancer: bedHost(plan, LOAD_BALANCER),
    spares: (options.spares ?? []).map((name) => bedHost(plan, name)),
    sshKeyPath: machineAccess(plan).privateKeyPath,
    artifacts,
    etcdVersion: etcdVersion(),
    crds: crdBundle(),
    members,
    previousRelease: previousRelease(mirrorDir, mirrorUrl),
  };
}

/** Stops the bed in `dir`: its lab (machines, clusters, mirror) with all it runs. Files outside the lab stay. */
export async function stopBed(dir: string): Promise<void> {
  const spec = recordedSpec(path.join(dir, "lab"));
  if (spec) await stopLab(planLab(spec));
}
