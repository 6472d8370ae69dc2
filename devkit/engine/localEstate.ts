/**
 * The local estate of `npm start` (scripts/sandbox/) for e2e suites and benchmarks: the same bed, the same
 * stacks program and Pulumi.local.yaml settings, in a private directory, driven through the Automation API
 * with the real CLI, language host and plugins. One estate per suite, shared by its checks.
 */
import { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stopPullAgent } from "../sandbox/agent";
import {
  Bed,
  bedLabSpec,
  EstateLayout,
  readLayout,
  replaceControlPlaneHost,
  startBed,
  stopBed,
} from "../sandbox/bed";
import { namespaceExists } from "../lab/network";
import { planLab } from "../lab/plan";
import { LOCAL_STACK, LocalStack, prepareLocalStack, SettingsEdit } from "../sandbox/stack";
import { E2E_ENGINE_SETTINGS } from "./env";
import { reportedVersion, requireBinary } from "../testbed";
import { TierNeeds } from "./tier";
import { acquireLock } from "../lock";
import { cacheRoot } from "../../lib/cache/entries";

/** What a suite running the local estate needs from the test bed (its `e2eTier` needs). */
export const LOCAL_ESTATE_NEEDS: TierNeeds = {
  binaries: [
    "etcd",
    // the backup drills restore a snapshot into a new etcd and count its keys
    "etcdutl",
    "etcdctl",
    "kube-apiserver",
    "kube-controller-manager",
    // the member clusters' schedulers (devkit/lab/controlPlane.ts)
    "kube-scheduler",
    "karmada-aggregated-apiserver",
    "karmada-controller-manager",
    "karmada-scheduler",
    "karmada-webhook",
    "karmada-agent",
    "karmadactl",
    "pulumi",
    "pulumi-language-nodejs",
    // the lab's machines (their image is checked when the lab starts: devkit/lab/machine.ts)
    "systemd-nspawn",
    "nsenter",
    "ssh",
    "ssh-keygen",
  ],
  plugins: ["command", "kubernetes", "tls", "random"],
};

/** Spare machines of an e2e estate: `cp3` takes the place of a control-plane machine lost for good. */
const SPARE_MACHINES: readonly string[] = ["cp3"];

/** A running local estate (processes started, stack prepared, nothing deployed yet). */
export interface LocalEstate {
  readonly dir: string;
  readonly bed: Bed;
  /**
   * Puts spare machine `replacement` in place of control-plane machine `lost`: the load balancer's pool
   * becomes the machines left plus the new one (devkit/sandbox/bed.ts); `bed` then lists it.
   */
  replaceControlPlaneHost(lost: string, replacement: string): Promise<void>;
  /** The stack with the repository's settings, changed by `edit` (e.g. a component upgrade). */
  stack(edit?: SettingsEdit): Promise<{ stack: Stack; local: LocalStack }>;
  /** Stops every process of the estate and removes its directory (no `destroy`: call that first). */
  stop(): Promise<void>;
}

/**
 * Whether the local estate's lab runs (its network namespace exists): an `npm start` estate, or a suite or
 * bench still running, whose machines starting this one's lab would stop. Looked up, not probed: with no
 * lab there is no route to its addresses, and a probe would leave this machine.
 */
export function localLabRunning(
  layout: EstateLayout,
  exists: (netns: string) => boolean = namespaceExists,
): string | undefined {
  const { netns } = planLab(bedLabSpec(os.tmpdir(), layout));
  return exists(netns) ? netns : undefined;
}

/**
 * The lock of the local estate's lab (its network namespace and addresses are one per machine): held by
 * an e2e suite or bench for as long as its estate runs, so suites on parallel jest workers take turns.
 */
export const localLabLock = () => path.join(cacheRoot(), "labs", "local.lock");

/** Starts the bed of the local estate in a new temporary directory (waiting for the local lab's lock). */
export async function startLocalEstate(prefix = "pk-local-"): Promise<LocalEstate> {
  const release = await acquireLock(localLabLock());
  const running = localLabRunning(readLayout());
  if (running) {
    release();
    throw new Error(
      `the local estate's lab runs (network namespace ${running}): another estate uses it — ` +
        "an `npm start` estate stops with `npm run stop`",
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  let bed: Bed | undefined;
  const stop = async () => {
    try {
      for (const m of readLayout().members) await stopPullAgent(dir, m.clusterName);
      await stopBed(dir);
      if (!process.env.PK_KEEP_TESTBED) fs.rmSync(dir, { recursive: true, force: true });
    } finally {
      release();
    }
  };
  try {
    bed = await startBed(dir, readLayout(), { spares: SPARE_MACHINES });
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
 * TEST BED ONLY: a stand-in for a newer karmada-scheduler release in `/opt/karmada-<version>` of each
 * control-plane machine (and spare), written to its disk — the test bed builds one Karmada release, so this is that binary with its embedded
 * version string rewritten (same length, same code). Returns the path on the machines.
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
  for (const host of [...estate.bed.controlPlaneHosts, ...estate.bed.spares]) {
    const dir = path.join(host.files, relative);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "karmada-scheduler"), bytes, { mode: 0o755 });
  }
  return relative;
}
