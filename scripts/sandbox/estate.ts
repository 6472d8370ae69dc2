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
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT, requireBinary } from "../../devkit/testbed";
import { inspectLab, labStartAction } from "../../devkit/lab/lab";
import { stopPullAgent } from "../../devkit/sandbox/agent";
import { bedLabSpec, readLayout, startBed, stopBed } from "../../devkit/sandbox/bed";
import {
  removeSample,
  SAMPLE,
  sandboxDir,
  startAgentsAndWait,
  writeAdminKubeconfig,
} from "../../devkit/sandbox/estate";
import {
  discardSandboxState,
  LOCAL_PARALLEL,
  LOCAL_STACK,
  prepareLocalStack,
  SSH_SESSION_DROPPED,
} from "../../devkit/sandbox/stack";
import { runSandboxCommand } from "./command";

const log = (message: string) => console.error(`[local-estate] ${message}`);

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
