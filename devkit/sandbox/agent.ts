/**
 * TEST BED ONLY: the kubelet of a pull-mode member. The local estate's member clusters run no pods, so
 * the karmada-agent Deployment our registration created is run as a process instead, in the lab (its
 * network namespace and cgroup: the lab's teardown stops it too): its own flags, its Karmada kubeconfig
 * from the Secret the registration wrote, the member's admin kubeconfig standing in for the in-cluster
 * service account, and listeners on the member's address.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { requireBinary } from "../testbed";
import { apiGet, credentialsFromKubeconfig } from "../kubeClient";
import { isRecordedProcessRunning, readPidFile, startProcess, stopRecordedProcesses } from "../processes";
import { labPlace } from "../lab/lab";
import { launcherPath } from "../lab/place";
import type { LabPlan } from "../lab/plan";
import { BedMember, PreviousRelease } from "./bed";

/** The agent's command line: the Deployment's flags with the files and listeners of the process. */
function agentArgs(
  deploymentCommand: readonly string[],
  files: { karmadaKubeconfig: string; memberKubeconfig: string },
  address: string,
): string[] {
  const flags = deploymentCommand.filter((arg) => arg.startsWith("--"));
  const replaced: Record<string, string> = {
    "karmada-kubeconfig": files.karmadaKubeconfig,
    "metrics-bind-address": `${address}:18080`,
    "health-probe-bind-address": `${address}:18357`,
  };
  const kept = flags.filter((f) => !(f.slice(2).split("=")[0] in replaced));
  return [
    ...kept,
    ...Object.entries(replaced).map(([k, v]) => `--${k}=${v}`),
    `--kubeconfig=${files.memberKubeconfig}`,
  ];
}

/** Where the agent of `member` keeps its pid, log and Karmada kubeconfig. */
const agentDir = (dir: string, clusterName: string) => path.join(dir, "agents", clusterName);

/**
 * The agent binary of the release the Deployment's image names: the previous release's when its tag is
 * that version (an estate before its upgrade), else the test bed's.
 */
function agentBinary(image: string, previous: PreviousRelease | undefined): string {
  const tag = image.slice(image.lastIndexOf(":") + 1);
  return previous && tag === previous.karmadaVersion
    ? path.join(previous.karmadaBin, "karmada-agent")
    : requireBinary("karmada-agent");
}

/**
 * Runs the agent of a pull member as the member's Deployment describes it, unless it runs with the same
 * command line and image already (a changed Deployment or credential restarts it).
 */
export async function runPullAgent(
  dir: string,
  lab: LabPlan,
  member: BedMember,
  previous?: PreviousRelease,
): Promise<void> {
  const run = agentDir(dir, member.clusterName);
  fs.mkdirSync(run, { recursive: true, mode: 0o700 });
  const creds = credentialsFromKubeconfig(fs.readFileSync(member.kubeconfigPath, "utf8"));
  const deployment = await apiGet(creds, "/apis/apps/v1/namespaces/karmada-system/deployments/karmada-agent");
  const secret = await apiGet(creds, "/api/v1/namespaces/karmada-system/secrets/karmada-kubeconfig");
  const karmadaKubeconfig = path.join(run, "karmada.kubeconfig");
  const kubeconfig = Buffer.from(secret.data["karmada-kubeconfig"], "base64").toString();
  const container = deployment.spec.template.spec.containers[0];
  const binary = agentBinary(container.image, previous);
  const args = agentArgs(
    container.command,
    { karmadaKubeconfig, memberKubeconfig: member.kubeconfigPath },
    member.address,
  );
  // the stamp holds a digest of the credential, never the credential itself
  const fingerprint = JSON.stringify({
    binary,
    args,
    kubeconfig: createHash("sha256").update(kubeconfig).digest("hex"),
  });
  const stamp = path.join(run, "running.json");
  const pidFile = path.join(run, "karmada-agent.pid");
  const running = isRecordedProcessRunning(readPidFile(pidFile));
  if (running && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === fingerprint) return;
  await stopRecordedProcesses(run, ["karmada-agent"]);
  fs.writeFileSync(karmadaKubeconfig, kubeconfig, { mode: 0o600 });
  fs.writeFileSync(stamp, fingerprint, { mode: 0o600 });
  const place = labPlace(lab, `agent-${member.clusterName}`);
  startProcess(run, "karmada-agent", launcherPath(place), [binary, ...args], {
    PATH: process.env.PATH ?? "",
  });
}

/** Stops the agent of member cluster `clusterName`, if it runs. */
export async function stopPullAgent(dir: string, clusterName: string): Promise<void> {
  await stopRecordedProcesses(agentDir(dir, clusterName), ["karmada-agent"]);
}
