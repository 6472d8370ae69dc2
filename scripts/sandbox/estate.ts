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
import { runPullAgent, stopPullAgent } from "./agent";
import { Bed, readLayout, startBed, stopBed } from "./bed";
import { runSandboxCommand } from "./command";
import { LOCAL_PARALLEL, LOCAL_STACK, LocalStack, prepareLocalStack } from "./stack";

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

async function up(preview: boolean): Promise<void> {
  const dir = sandboxDir();
  log(`starting the machines, the load balancer, the mirror and the member clusters in ${dir}`);
  const bed = await startBed(dir);
  const stack = prepareLocalStack(dir, bed);
  if (preview) {
    stack.run(["preview", "--diff", "--parallel", String(LOCAL_PARALLEL), "--stack", LOCAL_STACK]);
    return;
  }
  log(`pulumi up (stack ${LOCAL_STACK}, settings ${path.join(REPO_ROOT, "Pulumi.local.yaml")})`);
  stack.run(["up", "--yes", "--parallel", String(LOCAL_PARALLEL), "--stack", LOCAL_STACK]);
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
  try {
    // destroy talks to the hosts and clusters: start them again if they were stopped
    const bed = await startBed(dir, layout);
    const stack = prepareLocalStack(dir, bed);
    const kubeconfig = path.join(dir, "karmada.kubeconfig");
    if (fs.existsSync(kubeconfig))
      await removeSample(kubeconfig).catch((e) => log(`sample not removed: ${e}`));
    stack.run(["destroy", "--yes", "--parallel", String(LOCAL_PARALLEL), "--stack", LOCAL_STACK]);
    stack.run(["stack", "rm", "--yes", "--stack", LOCAL_STACK], { quiet: true });
  } catch (e) {
    // everything below is removed anyway: the state and every process are local to this directory
    log(`pulumi destroy failed (${(e as Error).message.split("\n")[0]}); removing the sandbox regardless`);
  }
  await stopBed(dir);
  for (const member of layout.members) await stopPullAgent(dir, member.clusterName);
  fs.rmSync(dir, { recursive: true, force: true });
  log("local estate removed");
}

if (require.main === module) runSandboxCommand("local-estate", process.argv.slice(2), up, down);
