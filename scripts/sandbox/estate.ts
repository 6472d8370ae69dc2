/**
 * The local estate (`npm start`, `npm run stop`): the bed's processes, then `pulumi up` of the stacks
 * program's `local` stack by the real engine, then the pull member's agent, then a wait until every
 * member cluster is Ready, and copy-paste commands to use it.
 *
 *   ts-node --transpile-only scripts/sandbox/estate.ts up [--preview]
 *   ts-node --transpile-only scripts/sandbox/estate.ts down
 *
 * Everything lives in PULUMI_KARMADA_SANDBOX_DIR (default ~/.cache/pulumi-karmada/local-estate).
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { REPO_ROOT, requireBinary } from "../../devkit/testbed";
import { apiGet, ApiCredentials, credentialsFromKubeconfig, waitFor } from "../../devkit/kubeClient";
import { inspectLab, labStartAction } from "../../devkit/lab/lab";
import { runPullAgent, stopPullAgent } from "./agent";
import { Bed, bedLabSpec, readLayout, startBed, stopBed } from "./bed";
import { runSandboxCommand } from "./command";
import {
  discardSandboxState,
  LOCAL_PARALLEL,
  LOCAL_STACK,
  LocalStack,
  prepareLocalStack,
  SSH_SESSION_DROPPED,
} from "./stack";

/** The sandbox directory. */
export function sandboxDir(): string {
  return (
    process.env.PULUMI_KARMADA_SANDBOX_DIR ??
    path.join(
      process.env.PULUMI_KARMADA_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-karmada"),
      "local-estate",
    )
  );
}

const log = (message: string) => console.error(`[local-estate] ${message}`);

/** Names of the Clusters in Karmada whose Ready condition is True. */
export async function readyClusters(karmada: ApiCredentials): Promise<string[]> {
  const list = await apiGet(karmada, "/apis/cluster.karmada.io/v1alpha1/clusters");
  return list.items
    .filter((c: any) => c.status?.conditions?.some((x: any) => x.type === "Ready" && x.status === "True"))
    .map((c: any) => c.metadata.name as string)
    .sort();
}

/** Writes the stack's admin kubeconfig (a secret output) to `<dir>/karmada.kubeconfig`, mode 0600. */
export function writeAdminKubeconfig(dir: string, stack: LocalStack): string {
  const file = path.join(dir, "karmada.kubeconfig");
  const kubeconfig = stack.run(["stack", "output", "--show-secrets", "adminKubeconfig"], { quiet: true });
  fs.writeFileSync(file, kubeconfig, { mode: 0o600 });
  return file;
}

/** After `up`: the pull members' agents run, and every member becomes Ready. */
export async function startAgentsAndWait(bed: Bed, kubeconfigFile: string): Promise<void> {
  for (const member of bed.members.filter((m) => m.mode === "Pull"))
    await runPullAgent(bed.dir, bed.lab.plan, member, bed.previousRelease);
  const karmada = credentialsFromKubeconfig(fs.readFileSync(kubeconfigFile, "utf8"));
  const wanted = bed.members.map((m) => m.clusterName).sort();
  await waitFor(
    `clusters ${wanted.join(", ")} Ready`,
    async () => (await readyClusters(karmada)).join() === wanted.join(),
    300_000,
    2000,
  );
}

/** The sample workload of the local estate (a Deployment and its PropagationPolicy). */
export const SAMPLE = path.join(REPO_ROOT, "examples", "local-estate", "nginx.yaml");

/**
 * Deletes the sample workload from Karmada and waits until Karmada's controllers have finalized its
 * bindings. Workloads must leave Karmada before the control plane does: their bindings carry finalizers
 * only karmada-controller-manager removes, and a CRD with such objects left never finishes deleting.
 */
export async function removeSample(kubeconfigFile: string): Promise<void> {
  execFileSync(
    requireBinary("karmadactl"),
    ["--kubeconfig", kubeconfigFile, "delete", "--ignore-not-found", "-f", SAMPLE],
    {
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const karmada = credentialsFromKubeconfig(fs.readFileSync(kubeconfigFile, "utf8"));
  await waitFor(
    "the sample's ResourceBindings finalized",
    async () => (await apiGet(karmada, "/apis/work.karmada.io/v1alpha2/resourcebindings")).items.length === 0,
    120_000,
    1000,
  );
}

/** How long `npm start` gives `pulumi up` (a new estate takes 1–2 minutes on 2 cores). */
const UP_TIMEOUT_MS = 30 * 60_000;
/** How long `npm run stop` gives `pulumi destroy` before it removes the sandbox regardless. */
const DESTROY_TIMEOUT_MS = 300_000;

/**
 * Before a new lab replaces the sandbox's: the state of an estate on the old lab is discarded (its
 * machines' and clusters' disks go with the old lab), so the next `up` creates the estate anew.
 */
function discardStateOfOldLab(dir: string, reason: string): void {
  const files = [path.join(dir, "karmada.kubeconfig"), path.join(dir, "agents")];
  if (discardSandboxState(dir, LOCAL_STACK, files)) {
    log(
      `the lab is made anew (${reason}): the stack's state of the estate on the old lab is discarded with it, ` +
        "so `pulumi up` creates the estate from nothing",
    );
  }
}

async function up(preview: boolean): Promise<void> {
  const dir = sandboxDir();
  log(`starting the machines, the load balancer, the mirror and the member clusters in ${dir}`);
  const bed = await startBed(dir, readLayout(), {
    beforeNewLab: (reason) => discardStateOfOldLab(dir, reason),
    log,
  });
  const stack = prepareLocalStack(dir, bed);
  if (preview) {
    stack.run(["preview", "--diff", "--parallel", String(LOCAL_PARALLEL), "--stack", LOCAL_STACK]);
    return;
  }
  log(`pulumi up (stack ${LOCAL_STACK}, settings ${path.join(REPO_ROOT, "Pulumi.local.yaml")})`);
  const upArgs = ["up", "--yes", "--parallel", String(LOCAL_PARALLEL), "--stack", LOCAL_STACK];
  await stack.runWithin(upArgs, UP_TIMEOUT_MS).catch(async (e: Error & { output?: string }) => {
    if (!SSH_SESSION_DROPPED.test(e.output ?? "")) throw e;
    log(
      "an SSH session dropped before its exit status arrived (docs/hosts.md): every host script is safe " +
        "to re-run, so pulumi up runs once more",
    );
    await stack.runWithin(upArgs, UP_TIMEOUT_MS);
  });
  const kubeconfig = writeAdminKubeconfig(dir, stack);
  log("starting the pull member's karmada-agent and waiting until every member is Ready");
  await startAgentsAndWait(bed, kubeconfig);
  const karmadactl = requireBinary("karmadactl");
  const memberLines = bed.members
    .map((m) => `  ${karmadactl} --kubeconfig ${m.kubeconfigPath} get deployment nginx -n default`)
    .join("\n");
  console.log(`
Karmada is up: ${bed.members.length} member clusters Ready.
  Karmada kubeconfig: ${kubeconfig}

  ${karmadactl} --kubeconfig ${kubeconfig} get clusters
  ${karmadactl} --kubeconfig ${kubeconfig} apply -f ${SAMPLE}
  # the Deployment in each member's API server (give it a few seconds):
${memberLines}

Change Pulumi.local.yaml or the code, then: npm start -- --preview (the diff), npm start (apply).
Stop and remove everything: npm run stop`);
}

async function down(): Promise<void> {
  const dir = sandboxDir();
  if (!fs.existsSync(dir)) {
    log(`nothing to remove at ${dir}`);
    return;
  }
  const layout = readLayout();
  const { start, reason } = labStartAction(bedLabSpec(dir, layout), inspectLab(path.join(dir, "lab")));
  if (start === "new") {
    // half a lab, or none: nothing of an estate can be on it; destroying would wait on what never ran
    log(`no estate to destroy (${reason}): removing the sandbox`);
  } else {
    try {
      // destroy talks to the hosts and clusters: boot them again if they were stopped
      const bed = await startBed(dir, layout, { log });
      const stack = prepareLocalStack(dir, bed);
      const kubeconfig = path.join(dir, "karmada.kubeconfig");
      if (fs.existsSync(kubeconfig))
        await removeSample(kubeconfig).catch((e) => log(`sample not removed: ${e}`));
      await stack.runWithin(
        ["destroy", "--yes", "--parallel", String(LOCAL_PARALLEL), "--stack", LOCAL_STACK],
        DESTROY_TIMEOUT_MS,
      );
      stack.run(["stack", "rm", "--yes", "--stack", LOCAL_STACK], { quiet: true });
    } catch (e) {
      // everything below is removed anyway: the state and every process are local to this directory
      log(`pulumi destroy failed (${(e as Error).message.split("\n")[0]}); removing the sandbox regardless`);
    }
  }
  const notRemoved: string[] = [];
  for (const member of layout.members)
    await stopPullAgent(dir, member.clusterName).catch((e) => notRemoved.push(String(e)));
  await stopBed(dir).catch((e) => notRemoved.push((e as Error).message));
  // never remove files below a mount that is still there (it may reach outside the sandbox)
  if (notRemoved.length)
    throw new Error(`could not remove everything; ${dir} is kept:\n${notRemoved.join("\n")}`);
  fs.rmSync(dir, { recursive: true, force: true });
  log("local estate removed");
}

if (require.main === module) runSandboxCommand("local-estate", process.argv.slice(2), up, down);
