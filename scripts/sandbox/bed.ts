/**
 * TEST BED ONLY: the machines, network and member clusters of the local estate, as processes on loopback
 * addresses that outlive the command starting them (pid files under the sandbox directory): one sshd per
 * host with its own filesystem root, the network daemon (VIP + artifact mirror, network.ts), and one
 * kube-apiserver cluster per member. Where everything listens comes from Pulumi.local.yaml (the stack's
 * own settings), so the stack and the bed cannot disagree. Starting again reuses what still runs.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse } from "yaml";
import {
  killScriptProcesses,
  pinnedHostKey,
  sshdConfig,
  waitForPort,
} from "../../test/support/hosts/testbed";
import { REPO_ROOT, reportedVersion, requireBinary, testbedEnv } from "../../test/support/kube/binaries";
import { isRunning, startProcess, stopRecordedProcesses } from "../../test/support/kube/processes";
import { stopClusterInDir } from "../../test/support/kube/cluster";
import { ensureCluster } from "./cluster";
import { MirroredArtifact, packMirror } from "./mirror";
import { NetworkSettings } from "./network";

/** The stack settings file of the local estate. */
export const LOCAL_STACK_FILE = path.join(REPO_ROOT, "Pulumi.local.yaml");

/** Port and address of the artifact mirror (on the VIP's network, one address up). */
const MIRROR_PORT = 8080;

/** A machine of the estate as the stack settings name it. */
export interface HostAddress {
  readonly name: string;
  readonly address: string;
  readonly port: number;
}

/** A member cluster as the stack settings name it. */
export interface MemberAddress {
  readonly clusterName: string;
  readonly mode: "Push" | "Pull";
  readonly apiEndpoint: string;
}

/** Where every part of the estate listens (read from Pulumi.local.yaml). */
export interface EstateLayout {
  readonly etcdHosts: readonly HostAddress[];
  readonly controlPlaneHosts: readonly HostAddress[];
  /** The VIP address (the host part of `controlPlane.apiServer.externalEndpoint`). */
  readonly vip: string;
  readonly members: readonly MemberAddress[];
}

/** A running host. */
export interface BedHost extends HostAddress {
  /** The host's filesystem root (every path of our scripts on it is below it). */
  readonly root: string;
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
  readonly etcdHosts: readonly BedHost[];
  readonly controlPlaneHosts: readonly BedHost[];
  /** The SSH private key every host accepts (a throw-away key of this bed; mode 0600). */
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

const SSHD = "/usr/sbin/sshd";
const NETWORK_DAEMON = path.join(__dirname, "network.ts");

const readPid = (file: string): number | undefined => {
  if (!fs.existsSync(file)) return undefined;
  const pid = Number(fs.readFileSync(file, "utf8").trim());
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
};
const alive = (pidFile: string): boolean => {
  const pid = readPid(pidFile);
  return pid !== undefined && isRunning(pid);
};

const keygen = (file: string, comment: string) => {
  if (!fs.existsSync(file))
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", file]);
};

/** Directory of a host (its sshd files; `root/` below it is the host's filesystem). */
const hostDir = (dir: string, name: string) => path.join(dir, "hosts", name);

/** Starts (or finds running) the sshd of `h`, its files prepared in the bed directory. */
async function startHost(dir: string, h: HostAddress, clientPub: string): Promise<BedHost> {
  const hd = hostDir(dir, h.name);
  const root = path.join(hd, "root");
  fs.mkdirSync(path.join(root, "root"), { recursive: true }); // the root and its /root, the sessions' HOME
  keygen(path.join(hd, "ssh_host_ed25519_key"), h.name);
  fs.writeFileSync(path.join(hd, "authorized_keys"), clientPub, { mode: 0o600 });
  fs.writeFileSync(path.join(hd, "sshd_config"), sshdConfig(hd, h.address, h.port));
  if (!alive(path.join(hd, "sshd.pid"))) await startSshd(dir, h);
  const hostKey = pinnedHostKey(hd);
  return { ...h, root, hostKey };
}

/** Starts the sshd of host `h` (it daemonizes, writing its pid file) and waits until it accepts connections. */
export async function startSshd(dir: string, h: HostAddress): Promise<void> {
  fs.mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const hd = hostDir(dir, h.name);
  execFileSync(SSHD, ["-f", path.join(hd, "sshd_config"), "-E", path.join(hd, "sshd.log")]);
  await waitForPort(h.address, h.port);
}

/** Stops the sshd of host `name` (the host is "down"; processes it started keep running). */
export function stopSshd(dir: string, name: string): void {
  const pid = readPid(path.join(hostDir(dir, name), "sshd.pid"));
  if (pid && isRunning(pid)) process.kill(pid, "SIGTERM");
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

/** Starts the network daemon unless it runs with these settings; waits until the VIP and the mirror listen. */
async function startNetwork(dir: string, settings: NetworkSettings): Promise<void> {
  const netDir = path.join(dir, "network");
  fs.mkdirSync(netDir, { recursive: true });
  const file = path.join(netDir, "network.json");
  const wanted = JSON.stringify(settings);
  const same = fs.existsSync(file) && fs.readFileSync(file, "utf8") === wanted;
  if (same && alive(path.join(netDir, "network.pid"))) return;
  await stopRecordedProcesses(netDir, ["network"]);
  fs.writeFileSync(file, wanted);
  const tsNode = path.join(REPO_ROOT, "node_modules", "ts-node", "dist", "bin.js");
  startProcess(netDir, "network", process.execPath, [tsNode, "--transpile-only", NETWORK_DAEMON, file], {
    PATH: process.env.PATH ?? "",
  });
  await waitForPort(settings.mirror.address, settings.mirror.port, 30_000);
  for (const p of settings.vip.ports) await waitForPort(settings.vip.address, p.listenPort, 30_000);
}

/** Where the mirror's tarballs are cached (shared by every bed on the machine). */
const mirrorCacheDir = () =>
  path.join(
    process.env.PULUMI_KARMADA_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-karmada"),
    "sandbox-mirror",
  );

/** karmada-apiserver's port on the VIP. */
export const VIP_API_PORT = 5443;

/** The mirror listens one address above the VIP. */
const mirrorAddress = (layout: EstateLayout) =>
  layout.vip.replace(/\.\d+$/, (last) => `.${Number(last.slice(1)) + 1}`);

/** The network daemon's settings: the VIP in front of the layout's control-plane machines, and the mirror. */
function networkSettings(layout: EstateLayout, mirrorDir: string): NetworkSettings {
  return {
    vip: {
      address: layout.vip,
      backends: layout.controlPlaneHosts.map((h) => h.address),
      ports: [
        { listenPort: VIP_API_PORT, targetPort: 5443 }, // karmada-apiserver
        { listenPort: 443, targetPort: 7443 }, // karmada-aggregated-apiserver (the Cluster API)
        { listenPort: 8443, targetPort: 8443 }, // karmada-webhook
      ],
    },
    mirror: { address: mirrorAddress(layout), port: MIRROR_PORT, dir: mirrorDir },
  };
}

/**
 * A new control-plane machine in place of `lost` (a machine gone for good): its sshd and filesystem root
 * started, and the VIP's backends changed to the machines left plus the new one, as an operator changes a
 * load balancer's pool (the daemon restarts with its new settings). Returns the bed with the new machine.
 */
export async function replaceControlPlaneHost(
  bed: Bed,
  lost: string,
  replacement: HostAddress,
): Promise<Bed> {
  const host = await startHost(bed.dir, replacement, fs.readFileSync(`${bed.sshKeyPath}.pub`, "utf8"));
  const controlPlaneHosts = [...bed.controlPlaneHosts.filter((h) => h.name !== lost), host];
  const layout: EstateLayout = {
    ...bed.layout,
    controlPlaneHosts: controlPlaneHosts.map(({ name, address, port }) => ({ name, address, port })),
  };
  await startNetwork(bed.dir, networkSettings(layout, mirrorCacheDir()));
  return { ...bed, layout, controlPlaneHosts };
}

/** Starts every process of the bed in `dir` (or finds it running) and describes it. */
export async function startBed(dir: string, layout: EstateLayout = readLayout()): Promise<Bed> {
  if (!fs.existsSync(SSHD)) throw new Error(`${SSHD} is missing: apt-get install openssh-server`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const sshKeyPath = path.join(dir, "ssh", "client_key");
  fs.mkdirSync(path.dirname(sshKeyPath), { recursive: true, mode: 0o700 });
  keygen(sshKeyPath, "pulumi-karmada-sandbox");
  const clientPub = fs.readFileSync(`${sshKeyPath}.pub`, "utf8");
  const hosts = await Promise.all(
    [...layout.etcdHosts, ...layout.controlPlaneHosts].map((h) => startHost(dir, h, clientPub)),
  );
  const mirrorDir = mirrorCacheDir();
  const mirrorUrl = `http://${mirrorAddress(layout)}:${MIRROR_PORT}`;
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
  await startNetwork(dir, networkSettings(layout, mirrorDir));
  const members = await Promise.all(
    layout.members.map(async (m) => {
      const address = new URL(m.apiEndpoint).hostname;
      const access = await ensureCluster({
        dir: path.join(dir, "members", m.clusterName),
        name: m.clusterName,
        address,
      });
      return { ...m, address, server: access.server, kubeconfigPath: access.kubeconfigPath };
    }),
  );
  const count = layout.etcdHosts.length;
  return {
    dir,
    layout,
    etcdHosts: hosts.slice(0, count),
    controlPlaneHosts: hosts.slice(count),
    sshKeyPath,
    artifacts,
    etcdVersion: etcdVersion(),
    crds: crdBundle(),
    members,
    previousRelease: previousRelease(mirrorDir, mirrorUrl),
  };
}

/** Stops every process of the bed in `dir` (services on the hosts included). Files stay. */
export async function stopBed(dir: string, layout: EstateLayout = readLayout()): Promise<void> {
  for (const h of [...layout.etcdHosts, ...layout.controlPlaneHosts]) {
    killScriptProcesses(path.join(hostDir(dir, h.name), "root"));
    stopSshd(dir, h.name);
  }
  await stopRecordedProcesses(path.join(dir, "network"), ["network"]);
  for (const m of layout.members) await stopClusterInDir(path.join(dir, "members", m.clusterName));
}
