/**
 * The local estate's member clusters (bed.ts): loopback clusters of devkit/kube that outlive the
 * command that started them (their pid files live in the cluster directory), found again when running.
 */
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { apiRequest, credentialsFromKubeconfig } from "../../devkit/kubeClient";
import { startCluster, stopClusterInDir } from "../../devkit/kube/cluster";
import { isRecordedProcessRunning, readPidFile } from "../../devkit/processes";

/** Every pid file of the cluster names the live process it recorded (a cluster without any pid file is not running). */
function allRecordedRunning(dir: string): boolean {
  const runDir = path.join(dir, "run");
  const pids = fs.existsSync(runDir) ? fs.readdirSync(runDir).filter((f) => f.endsWith(".pid")) : [];
  return pids.length > 0 && pids.every((f) => isRecordedProcessRunning(readPidFile(path.join(runDir, f))));
}

/** The running cluster in `dir`, if it answers /readyz with its admin credentials. */
async function runningCluster(dir: string): Promise<ClusterAccess | undefined> {
  const kubeconfigPath = path.join(dir, "kubeconfig");
  if (!allRecordedRunning(dir) || !fs.existsSync(kubeconfigPath)) return undefined;
  const text = fs.readFileSync(kubeconfigPath, "utf8");
  const creds = credentialsFromKubeconfig(text);
  const server = creds.server;
  const kubeconfig = parse(text);
  const ready = await apiRequest(creds, "GET", "/readyz").then(
    (r) => r.status === 200,
    () => false,
  );
  return ready ? { server, kubeconfigPath, contextName: kubeconfig["current-context"] } : undefined;
}

/** Where a running loopback cluster is reached. */
export interface ClusterAccess {
  readonly server: string;
  readonly kubeconfigPath: string;
  readonly contextName: string;
}

/**
 * The cluster recorded in `dir` if it is running and ready; otherwise (leftovers stopped) a new one on
 * `address`, its processes outliving this one.
 */
export async function ensureCluster(options: {
  readonly dir: string;
  readonly name: string;
  readonly address: string;
}): Promise<ClusterAccess> {
  const running = await runningCluster(options.dir);
  if (running) return running;
  await stopClusterInDir(options.dir);
  const cluster = await startCluster({
    name: options.name,
    address: options.address,
    dir: options.dir,
  });
  return { server: cluster.server, kubeconfigPath: cluster.kubeconfigPath, contextName: cluster.contextName };
}
