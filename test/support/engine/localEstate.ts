/**
 * The local estate of `npm start` (scripts/sandbox/) for e2e suites and benchmarks: the same bed, the same
 * stacks program and Pulumi.local.yaml settings, in a private directory, driven through the Automation API
 * with the real CLI, language host and plugins. One estate per suite, shared by its checks.
 */
import { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stopPullAgent } from "../../../scripts/sandbox/agent";
import {
  Bed,
  EstateLayout,
  HostAddress,
  readLayout,
  replaceControlPlaneHost,
  startBed,
  stopBed,
  VIP_API_PORT,
} from "../../../scripts/sandbox/bed";
import { LOCAL_STACK, LocalStack, prepareLocalStack, SettingsEdit } from "../../../scripts/sandbox/stack";
import { portOpen } from "../hosts/testbed";
import { E2E_ENGINE_SETTINGS } from "./env";
import { reportedVersion, requireBinary } from "../kube/binaries";
import { TierNeeds } from "./tier";

/** What a suite running the local estate needs from the test bed (its `e2eTier` needs). */
export const LOCAL_ESTATE_NEEDS: TierNeeds = {
  binaries: [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "karmada-aggregated-apiserver",
    "karmada-controller-manager",
    "karmada-scheduler",
    "karmada-webhook",
    "karmada-agent",
    "karmadactl",
    "pulumi",
    "pulumi-language-nodejs",
  ],
  plugins: ["command", "kubernetes", "tls", "random"],
};

/** A running local estate (processes started, stack prepared, nothing deployed yet). */
export interface LocalEstate {
  readonly dir: string;
  readonly bed: Bed;
  /**
   * Starts machine `replacement` in place of control-plane machine `lost` and points the VIP at the machines
   * left plus the new one (scripts/sandbox/bed.ts); `bed` then lists it.
   */
  replaceControlPlaneHost(lost: string, replacement: HostAddress): Promise<void>;
  /** The stack with the repository's settings, changed by `edit` (e.g. a component upgrade). */
  stack(edit?: SettingsEdit): Promise<{ stack: Stack; local: LocalStack }>;
  /** Stops every process of the estate and removes its directory (no `destroy`: call that first). */
  stop(): Promise<void>;
}

/**
 * The endpoints of `layout` — each host's sshd, the VIP's karmada-apiserver port — that already accept
 * connections: another estate on the same loopback addresses (an `npm start` estate, a suite or bench
 * still running) would fight this one's sshd and VIP.
 */
export async function takenEstateEndpoints(layout: EstateLayout): Promise<string[]> {
  const endpoints: [string, number][] = [
    ...[...layout.etcdHosts, ...layout.controlPlaneHosts].map((h): [string, number] => [h.address, h.port]),
    [layout.vip, VIP_API_PORT],
  ];
  const open = await Promise.all(endpoints.map(([address, port]) => portOpen(address, port)));
  return endpoints.filter((_, i) => open[i]).map(([address, port]) => `${address}:${port}`);
}

/** Starts the bed of the local estate in a new temporary directory. */
export async function startLocalEstate(prefix = "pk-local-"): Promise<LocalEstate> {
  const taken = await takenEstateEndpoints(readLayout());
  if (taken.length) {
    throw new Error(
      `the local estate's addresses are in use (${taken.join(", ")}): another estate runs there — ` +
        "an `npm start` estate stops with `npm run stop`",
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  let bed: Bed | undefined;
  const stop = async () => {
    const layout = readLayout();
    for (const m of layout.members) await stopPullAgent(dir, m.clusterName);
    await stopBed(dir, layout);
    // a machine that replaced one of the layout's (replaceControlPlaneHost)
    const added = (bed?.layout.controlPlaneHosts ?? []).filter(
      (h) => !layout.controlPlaneHosts.some((l) => l.name === h.name),
    );
    if (added.length) await stopBed(dir, { ...layout, etcdHosts: [], controlPlaneHosts: added, members: [] });
    if (!process.env.PK_KEEP_TESTBED) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    bed = await startBed(dir);
    return {
      dir,
      get bed() {
        return bed!;
      },
      stop,
      replaceControlPlaneHost: async (lost, replacement) => {
        bed = await replaceControlPlaneHost(bed!, lost, replacement);
      },
      stack: async (edit) => {
        const local = prepareLocalStack(dir, bed!, edit);
        const stack = await LocalWorkspace.selectStack(
          { stackName: LOCAL_STACK, workDir: local.workDir },
          {
            envVars: { ...local.env, ...E2E_ENGINE_SETTINGS },
            pulumiCommand: await PulumiCommand.get({ root: path.dirname(path.dirname(local.pulumi)) }),
          },
        );
        return { stack, local };
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * TEST BED ONLY: a stand-in for a newer karmada-scheduler release in `<root>/opt/karmada-<version>` of each
 * control-plane host — the test bed builds one Karmada release, so this is that binary with its embedded
 * version string rewritten (same length, same code). Returns the path (relative to the roots).
 */
export function stageSchedulerVersion(estate: LocalEstate, version: string): string {
  const binary = requireBinary("karmada-scheduler");
  const built = reportedVersion(binary, "karmada");
  if (built.length !== version.length) throw new Error(`${version} must be as long as ${built}`);
  const bytes = fs.readFileSync(binary);
  // the -X ldflags string stands alone, between NUL bytes (module paths carry it after an "@")
  const needle = Buffer.from(`\0${built}\0`, "latin1");
  const at = bytes.indexOf(needle);
  if (at < 0 || bytes.indexOf(needle, at + 1) >= 0) throw new Error(`expected one version string ${built}`);
  Buffer.from(`\0${version}\0`, "latin1").copy(bytes, at);
  const relative = `/opt/karmada-${version}`;
  for (const host of estate.bed.controlPlaneHosts) {
    const dir = path.join(host.root, relative);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "karmada-scheduler"), bytes, { mode: 0o755 });
  }
  return relative;
}
