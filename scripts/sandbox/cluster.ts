/**
 * Loopback clusters for the sandboxes (containerized-up.sh/-down.sh; the local estate's members through
 * `ensureCluster`, bed.ts), shared with the e2e tests'
 * test/support/kube. Processes outlive this command; their pid files live in the cluster directory.
 *
 *   cluster.ts ca    --dir <dir> --name <common name>     create a CA in <dir> unless one is there
 *   cluster.ts start --dir <dir> --name <name> --address <127.x.y.z> [--ca-dir <dir>]
 *                    start (or find running) a cluster; prints {"server","kubeconfigPath","contextName"}
 *   cluster.ts stop  --dir <dir>                          stop the cluster recorded in <dir>
 */
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { apiRequest, credentialsFromKubeconfig } from "../../test/support/kube/client";
import { startCluster, stopClusterInDir } from "../../test/support/kube/cluster";
import { CaPair, generateCa } from "../../test/support/kube/pki";
import { isRunning } from "../../test/support/kube/processes";

type Flags = Record<string, string>;

function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || argv[i + 1] === undefined)
      throw new Error(`expected --name value pairs, got ${argv[i]}`);
    flags[argv[i].slice(2)] = argv[i + 1];
  }
  return flags;
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

function readCa(dir: string): CaPair {
  return {
    certPem: fs.readFileSync(path.join(dir, "ca.crt"), "utf8"),
    keyPem: fs.readFileSync(path.join(dir, "ca.key"), "utf8"),
  };
}

/** Every pid file of the cluster names a live process (a cluster without any pid file is not running). */
function allRecordedRunning(dir: string): boolean {
  const runDir = path.join(dir, "run");
  const pids = fs.existsSync(runDir) ? fs.readdirSync(runDir).filter((f) => f.endsWith(".pid")) : [];
  return (
    pids.length > 0 &&
    pids.every((f) => isRunning(Number(fs.readFileSync(path.join(runDir, f), "utf8").trim())))
  );
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
 * `address`, its processes outliving this one. `caDir` holds a CA (ca.crt, ca.key) the cluster serves with.
 */
export async function ensureCluster(options: {
  readonly dir: string;
  readonly name: string;
  readonly address: string;
  readonly caDir?: string;
}): Promise<ClusterAccess> {
  const running = await runningCluster(options.dir);
  if (running) return running;
  await stopClusterInDir(options.dir);
  const cluster = await startCluster({
    name: options.name,
    address: options.address,
    dir: options.dir,
    ca: options.caDir ? readCa(options.caDir) : undefined,
  });
  return { server: cluster.server, kubeconfigPath: cluster.kubeconfigPath, contextName: cluster.contextName };
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  const flags = parseFlags(rest);
  const dir = path.resolve(required(flags, "dir"));
  switch (command) {
    case "ca":
      if (!fs.existsSync(path.join(dir, "ca.key"))) generateCa(dir, required(flags, "name"));
      return;
    case "start":
      console.log(
        JSON.stringify(
          await ensureCluster({
            dir,
            name: required(flags, "name"),
            address: required(flags, "address"),
            caDir: flags["ca-dir"] ? path.resolve(flags["ca-dir"]) : undefined,
          }),
        ),
      );
      return;
    case "stop":
      await stopClusterInDir(dir);
      return;
    default:
      throw new Error(`unknown command ${JSON.stringify(command)} (ca, start, stop)`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`cluster.ts: ${(e as Error).message}`);
    process.exit(1);
  });
}
