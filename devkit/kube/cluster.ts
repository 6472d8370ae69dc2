/**
 * A real Kubernetes API "cluster" on one loopback address: etcd + kube-apiserver (+ kube-controller-
 * manager) as processes, with openssl-made certificates and an admin kubeconfig. No kubelet and no
 * scheduler: objects are accepted, stored and reconciled by the controllers, but pods never run.
 */
import * as fs from "fs";
import * as http from "http";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { renderKubeconfig } from "../../lib/kubeconfig/render";
import { requireBinary, testbedEnv } from "../testbed";
import { ApiCredentials, waitFor } from "../kubeClient";
import { callApi } from "../../lib/kube/rest";
import { ClusterOptions, ResolvedClusterOptions, resolveClusterOptions } from "./options";
import { ClusterPkiFiles, issueClusterPki } from "../pki";
import { BackgroundProcess, isRunning, logTail, startProcess, stopRecordedProcesses } from "../processes";

/** Process names, in start order (stopped in reverse). */
const PROCESS_ORDER = ["etcd", "kube-apiserver", "kube-controller-manager"] as const;

/** A started loopback cluster. */
export interface LoopbackCluster {
  readonly name: string;
  readonly address: string;
  /** API server URL, `https://<address>:<port>`. */
  readonly server: string;
  /** Directory holding PKI, data, logs and pid files. */
  readonly dir: string;
  /** Admin kubeconfig file (mode 0600). */
  readonly kubeconfigPath: string;
  /** Admin kubeconfig contents: a credential, never log it. */
  readonly kubeconfig: string;
  /** Name of the kubeconfig's only context (`loopback-<name>`). */
  readonly contextName: string;
  /** PEM of the CA that signed the serving certificate and is trusted for client certificates. */
  readonly caCertPem: string;
  /** Admin credentials for {@link callApi} and friends. */
  readonly credentials: ApiCredentials;
  readonly processes: readonly BackgroundProcess[];
  /** Stops every process; removes the directory when it was a temporary one, or when asked. */
  stop(options?: { readonly removeDir?: boolean }): Promise<void>;
}

function portOpen(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** Whether the etcd at `url` (plain http) answers `/health` as healthy. */
export function etcdHealthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get(`${url}/health`, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve(res.statusCode === 200 && /"health":\s*"true"/.test(body)));
      })
      .on("error", () => resolve(false));
  });
}

function pkiIn(dir: string, options: ResolvedClusterOptions): ClusterPkiFiles {
  const pkiDir = path.join(dir, "pki");
  const caPath = path.join(pkiDir, "ca.crt");
  const reusable =
    fs.existsSync(path.join(pkiDir, "admin.crt")) &&
    fs.existsSync(path.join(pkiDir, "sa.pub")) &&
    (!options.ca || fs.readFileSync(caPath, "utf8") === options.ca.certPem);
  if (!reusable) {
    return issueClusterPki(pkiDir, {
      clusterName: options.name,
      address: options.address,
      serviceIp: options.serviceIp,
      ca: options.ca,
    });
  }
  const file = (name: string) => path.join(pkiDir, name);
  return {
    caCert: caPath,
    caKey: file("ca.key"),
    servingCert: file("apiserver.crt"),
    servingKey: file("apiserver.key"),
    adminCert: file("admin.crt"),
    adminKey: file("admin.key"),
    saKey: file("sa.key"),
    saPub: file("sa.pub"),
  };
}

function etcdArgs(o: ResolvedClusterOptions, dataDir: string): string[] {
  const client = `http://${o.address}:${o.ports.etcdClient}`;
  const peer = `http://${o.address}:${o.ports.etcdPeer}`;
  return [
    `--name=${o.name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${o.name}=${peer}`,
    // throw-away data: skipping fsync keeps a 2-core machine responsive
    "--unsafe-no-fsync",
    "--log-level=warn",
  ];
}

function apiServerArgs(o: ResolvedClusterOptions, pki: ClusterPkiFiles, dir: string): string[] {
  const issuer = "https://kubernetes.default.svc.cluster.local";
  return [
    `--bind-address=${o.address}`,
    `--advertise-address=${o.address}`,
    `--secure-port=${o.ports.apiServer}`,
    `--etcd-servers=http://${o.address}:${o.ports.etcdClient}`,
    `--tls-cert-file=${pki.servingCert}`,
    `--tls-private-key-file=${pki.servingKey}`,
    `--client-ca-file=${pki.caCert}`,
    `--service-account-issuer=${issuer}`,
    `--api-audiences=${issuer}`,
    `--service-account-key-file=${pki.saPub}`,
    `--service-account-signing-key-file=${pki.saKey}`,
    `--service-cluster-ip-range=${o.serviceCidr}`,
    "--authorization-mode=RBAC",
    "--allow-privileged=true",
    // a loopback address is not a valid Endpoints address: do not publish one for `kubernetes`
    "--endpoint-reconciler-type=none",
    `--cert-dir=${path.join(dir, "apiserver")}`,
    "--profiling=false",
  ];
}

function controllerManagerArgs(
  o: ResolvedClusterOptions,
  pki: ClusterPkiFiles,
  kubeconfigPath: string,
  dir: string,
): string[] {
  return [
    `--kubeconfig=${kubeconfigPath}`,
    `--authentication-kubeconfig=${kubeconfigPath}`,
    `--authorization-kubeconfig=${kubeconfigPath}`,
    `--bind-address=${o.address}`,
    `--secure-port=${o.ports.controllerManager}`,
    `--cert-dir=${path.join(dir, "controller-manager")}`,
    "--leader-elect=false",
    `--service-account-private-key-file=${pki.saKey}`,
    `--root-ca-file=${pki.caCert}`,
    `--cluster-signing-cert-file=${pki.caCert}`,
    `--cluster-signing-key-file=${pki.caKey}`,
    "--profiling=false",
  ];
}

/**
 * Starts a cluster and resolves once it serves: etcd healthy, kube-apiserver `/readyz` 200 and, with the
 * controller manager, the `default` ServiceAccount created (proof the controllers reconcile). On failure
 * everything started is stopped and the error carries the failing process's log tail.
 */
export async function startCluster(options: ClusterOptions): Promise<LoopbackCluster> {
  const o = resolveClusterOptions(options);
  const env = testbedEnv().env;
  const bins = {
    etcd: requireBinary("etcd", env),
    apiServer: requireBinary("kube-apiserver", env),
    controllerManager: o.controllerManager ? requireBinary("kube-controller-manager", env) : undefined,
  };
  for (const [key, port] of Object.entries(o.ports)) {
    if (await portOpen(o.address, port)) {
      throw new Error(
        `${o.address}:${port} (ports.${key}) is already in use: is cluster ${o.name} already running?`,
      );
    }
  }
  const ownsDir = o.dir === undefined;
  const dir = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), `pk-cluster-${o.name}-`));
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const runDir = path.join(dir, "run");
  const pki = pkiIn(dir, o);
  const server = `https://${o.address}:${o.ports.apiServer}`;
  const read = (file: string) => fs.readFileSync(file, "utf8");
  const credentials: ApiCredentials = {
    server,
    caPem: read(pki.caCert),
    certPem: read(pki.adminCert),
    keyPem: read(pki.adminKey),
  };
  const contextName = `loopback-${o.name}`;
  const kubeconfig = renderKubeconfig({
    server,
    caPem: credentials.caPem,
    certPem: credentials.certPem,
    keyPem: credentials.keyPem,
    clusterName: contextName,
    userName: `${contextName}-admin`,
    contextName,
  });
  const kubeconfigPath = path.join(dir, "kubeconfig");
  fs.writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });

  const processes: BackgroundProcess[] = [];
  const stop = async (stopOptions?: { readonly removeDir?: boolean }) => {
    await stopRecordedProcesses(runDir, PROCESS_ORDER);
    if (stopOptions?.removeDir ?? ownsDir) fs.rmSync(dir, { recursive: true, force: true });
  };
  const started = async (what: string, proc: BackgroundProcess, probe: () => Promise<boolean>) => {
    try {
      await waitFor(
        what,
        async () => {
          if (!isRunning(proc.pid)) throw new Error(`${proc.name} exited`);
          return probe();
        },
        o.readyTimeoutMs,
      );
    } catch (e) {
      const tail = logTail(proc.logPath);
      await stop();
      throw new Error(
        `cluster ${o.name}: ${(e as Error).message}\n--- ${proc.name} log (last lines) ---\n${tail}`,
      );
    }
  };

  const etcd = startProcess(runDir, "etcd", bins.etcd, etcdArgs(o, path.join(dir, "etcd")), env);
  processes.push(etcd);
  await started("etcd health", etcd, () => etcdHealthy(`http://${o.address}:${o.ports.etcdClient}`));

  const apiServer = startProcess(runDir, "kube-apiserver", bins.apiServer, apiServerArgs(o, pki, dir), env);
  processes.push(apiServer);
  await started(
    "kube-apiserver /readyz",
    apiServer,
    async () => (await callApi(credentials, "GET", "/readyz")).status === 200,
  );

  if (bins.controllerManager) {
    const args = controllerManagerArgs(o, pki, kubeconfigPath, dir);
    const kcm = startProcess(runDir, "kube-controller-manager", bins.controllerManager, args, env);
    processes.push(kcm);
    await started(
      "default ServiceAccount (kube-controller-manager reconciling)",
      kcm,
      async () =>
        (await callApi(credentials, "GET", "/api/v1/namespaces/default/serviceaccounts/default")).status ===
        200,
    );
  }
  return {
    name: o.name,
    address: o.address,
    server,
    dir,
    kubeconfigPath,
    kubeconfig,
    contextName,
    caCertPem: credentials.caPem,
    credentials,
    processes,
    stop,
  };
}
