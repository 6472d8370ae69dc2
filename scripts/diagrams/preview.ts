/**
 * A real `pulumi preview --json` of the local estate — the stacks/ program with Pulumi.local.yaml, the
 * stack `npm start` deploys — without its machines or clusters. The stack is prepared exactly as
 * devkit/sandbox/stack.ts prepares it for `npm start`, from a placeholder bed instead of a running one:
 *
 * - machines get a generated host key; binaries a placeholder mirror URL and sha256 (the
 *   preview runs no command, so nothing is fetched and no SSH connection is made);
 * - the member clusters' kubeconfigs all point at one loopback kube-apiserver started for the preview:
 *   the kubernetes provider reads each member's `kube-system` Namespace during a preview (the Cluster's
 *   `spec.id`) and fails on an unreachable cluster;
 * - every address in the settings (the lab's, 10.0.0.0/8, or loopback) is moved into 127.0.12.0/24, so
 *   anything the preview might contact is this script's own (the addresses appear in no resource name:
 *   the graph is unchanged).
 *
 * Measured with `strace -f -e trace=connect`: the preview connects only to 127.0.0.1 (the engine and its
 * plugins) and to the stand-in cluster.
 */
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { readLayout } from "../../devkit/sandbox/bed";
import { MirroredArtifact } from "../../devkit/sandbox/mirror";
import { LOCAL_STACK, prepareLocalStack, StackBed } from "../../devkit/sandbox/stack";
import { pinnedHostKey } from "../../devkit/hosts/testbed";
import { REPO_ROOT, testbedEnv } from "../../devkit/testbed";
import { startCluster } from "../../devkit/kube/cluster";
import { ConfigError } from "../../lib/validation/errors";

/** The loopback network this script may use (`a.b.c`, the /24 without its last octet). */
export const PREVIEW_NETWORK = "127.0.12";

/** The stand-in member cluster's address. */
const STAND_IN_ADDRESS = `${PREVIEW_NETWORK}.10`;

const IPV4 = /\b(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\b/g;

/**
 * `value` with every IPv4 address of a lab (10.0.0.0/8) or of loopback moved into `network` (last octet
 * kept), recursively through objects and lists. Any other IPv4 address is a ConfigError naming where it
 * is: the preview must not be able to reach beyond this machine.
 */
export function relocateAddresses(value: unknown, network: string, at = "config"): unknown {
  if (typeof value === "string") {
    return value.replace(IPV4, (address, first: string, _b, _c, last: string) => {
      if (first !== "127" && first !== "10")
        throw new ConfigError(at, `${address} is not a lab or loopback address`, "10.0.0.0/8, 127.0.0.0/8");
      return `${network}.${last}`;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => relocateAddresses(v, network, `${at}[${i}]`));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, relocateAddresses(v, network, `${at}.${k}`)]),
    );
  }
  return value;
}

/** ETCD_VERSION of scripts/testbed/versions.env (what the bed would report from its etcd binary). */
function pinnedEtcdVersion(): string {
  const env = fs.readFileSync(path.join(REPO_ROOT, "scripts", "testbed", "versions.env"), "utf8");
  const match = /^ETCD_VERSION=(\S+)$/m.exec(env);
  if (!match) throw new Error("scripts/testbed/versions.env sets no ETCD_VERSION");
  return match[1];
}

/** The test bed's Karmada CRD bundle: it decides how many CRD resources the estate has. */
function crdBundle(): string {
  const bundle = testbedEnv().env.TESTBED_KARMADA_CRDS;
  if (!bundle || !fs.existsSync(bundle))
    throw new Error("the test bed's Karmada CRD bundle is missing: run scripts/testbed/build.sh karmada");
  return bundle;
}

/** Every mirrored tarball the settings name, as a placeholder on this script's network. */
const placeholderArtifacts = new Proxy({} as Record<string, MirroredArtifact>, {
  get: (_, name) => ({ url: `http://${PREVIEW_NETWORK}.1/${String(name)}.tar.gz`, sha256: "0".repeat(64) }),
});

/** A bed that runs nothing: what the stack settings need, generated keys, and `standIn` as every member. */
function placeholderBed(dir: string, standIn: { server: string; kubeconfigPath: string }): StackBed {
  const keygen = (file: string) =>
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "diagrams-preview", "-f", file]);
  const sshKeyPath = path.join(dir, "client_key");
  keygen(sshKeyPath);
  keygen(path.join(dir, "ssh_host_ed25519_key"));
  const hostKey = pinnedHostKey(dir);
  const layout = readLayout();
  const machine = (h: { name: string }) => ({ name: h.name, hostKey });
  return {
    etcdHosts: layout.etcdHosts.map(machine),
    controlPlaneHosts: layout.controlPlaneHosts.map(machine),
    sshKeyPath,
    artifacts: placeholderArtifacts,
    etcdVersion: pinnedEtcdVersion(),
    crds: crdBundle(),
    members: layout.members.map((m) => ({
      clusterName: m.clusterName,
      apiEndpoint: m.apiEndpoint,
      kubeconfigPath: standIn.kubeconfigPath,
    })),
  };
}

/** What the preview printed. */
export interface PreviewRun {
  /** The JSON document `pulumi preview --json` printed (a PreviewDigest). */
  readonly json: string;
  /** How long the preview took (stand-in cluster included), in seconds. */
  readonly seconds: number;
}

/** Runs `pulumi preview --json` of the local estate's stack (see the file comment) and returns its JSON. */
export async function previewLocalEstate(): Promise<PreviewRun> {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-diagrams-"));
  const cluster = await startCluster({
    name: "members",
    address: STAND_IN_ADDRESS,
    dir: path.join(dir, "members"),
    controllerManager: false,
  }).catch((e) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  try {
    const bed = placeholderBed(dir, { server: cluster.server, kubeconfigPath: cluster.kubeconfigPath });
    const stack = prepareLocalStack(dir, bed, (config) => {
      for (const key of Object.keys(config))
        config[key] = relocateAddresses(config[key], PREVIEW_NETWORK, key);
    });
    const result = spawnSync(
      stack.pulumi,
      ["--non-interactive", "preview", "--json", "--stack", LOCAL_STACK],
      {
        cwd: stack.workDir,
        env: stack.env,
        encoding: "utf8",
        maxBuffer: 1 << 30,
      },
    );
    if (result.error) throw new Error(`cannot run pulumi: ${result.error.message}`);
    if (result.status !== 0) {
      throw new Error(
        `pulumi preview of stack ${LOCAL_STACK} failed (exit ${result.status}):\n${result.stderr.trim()}\n` +
          errorDiagnostics(result.stdout),
      );
    }
    return { json: result.stdout, seconds: Math.round((Date.now() - started) / 1000) };
  } finally {
    await cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The error diagnostics of a (failed) preview's JSON, one per line; "" when there is none to read. */
function errorDiagnostics(json: string): string {
  try {
    const digest = JSON.parse(json) as { diagnostics?: { severity?: string; message?: string }[] };
    return (digest.diagnostics ?? [])
      .filter((d) => d.severity === "error")
      .map((d) => (d.message ?? "").trim())
      .join("\n");
  } catch {
    return json.slice(0, 2000);
  }
}
