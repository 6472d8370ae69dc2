/**
 * The local estate's library half (`npm start`'s, scripts/sandbox/estate.ts): where it lives, its admin
 * kubeconfig, its agents and the wait for its members, its sample workload — what the command, the e2e
 * suites and the benches share.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { REPO_ROOT, requireBinary } from "../testbed";
import { apiGet, ApiCredentials, credentialsFromKubeconfig, waitFor } from "../kubeClient";
import { runPullAgent } from "./agent";
import { Bed } from "./bed";
import { LocalStack } from "./stack";

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
