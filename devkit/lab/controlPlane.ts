/**
 * A lab cluster's control plane: etcd, kube-apiserver, kube-controller-manager and kube-scheduler as
 * processes in the lab namespace on the cluster's address, with a PKI of its own (openssl) that also
 * holds each node's and kube-proxy's client certificate. Node authorization and NodeRestriction are on,
 * as on any production cluster: a kubelet is `system:node:<name>`, not an admin.
 */
import * as fs from "fs";
import * as path from "path";
import { renderKubeconfig } from "../../lib/kubeconfig/render";
import { ApiCredentials, waitFor } from "../kubeClient";
import { callApi } from "../../lib/kube/rest";
import {
  CLIENT_EXTENSIONS,
  apiServerSans,
  generateCa,
  generateServiceAccountKey,
  issueLeaf,
  servingExtensions,
} from "../pki";
import { isRunning, logTail } from "../processes";
import { currentEnv, requireBinary } from "../testbed";
import type { ClusterPlan, LabPlan } from "./plan";
import { API_PORT } from "./plan";
import { Place, preparePlace, startIn } from "./place";

/** Client identities issued for every cluster: file name → subject. */
const COMPONENT_IDENTITIES = {
  admin: "/O=system:masters/CN=lab-admin",
  // the API server's identity towards kubelets (logs, exec): allowed by their webhook authorization
  "apiserver-kubelet-client": "/O=system:masters/CN=kube-apiserver-kubelet-client",
  "controller-manager": "/CN=system:kube-controller-manager",
  scheduler: "/CN=system:kube-scheduler",
  "kube-proxy": "/CN=system:kube-proxy",
} as const;

const CERT_DAYS = 365;

/** The processes of a cluster's control plane, by the names of their pid and log files. */
export const CONTROL_PLANE_PROCESSES = [
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
] as const;

/** Paths of a cluster's files. */
export function clusterFiles(cluster: ClusterPlan) {
  const pki = path.join(cluster.dir, "pki");
  return {
    pki,
    caCert: path.join(pki, "ca.crt"),
    saPublicKey: path.join(pki, "sa.pub"),
    cert: (name: string) => path.join(pki, `${name}.crt`),
    key: (name: string) => path.join(pki, `${name}.key`),
    kubeconfig: (name: string) => path.join(cluster.dir, `${name}.kubeconfig`),
    etcdData: path.join(cluster.dir, "etcd"),
    runDir: path.join(cluster.dir, "run"),
  };
}

/** Kubeconfig of identity `name` (its certificate from the cluster's PKI), context `lab-<cluster>`. */
function identityKubeconfig(cluster: ClusterPlan, name: string): string {
  const f = clusterFiles(cluster);
  const read = (p: string) => fs.readFileSync(p, "utf8");
  const context = `lab-${cluster.name}`;
  return renderKubeconfig({
    server: cluster.server,
    caPem: read(f.caCert),
    certPem: read(f.cert(name)),
    keyPem: read(f.key(name)),
    clusterName: context,
    userName: `${context}-${name}`,
    contextName: context,
  });
}

/** The admin credentials of a cluster (system:masters). */
export function adminCredentials(cluster: ClusterPlan): ApiCredentials {
  const f = clusterFiles(cluster);
  const read = (p: string) => fs.readFileSync(p, "utf8");
  return {
    server: cluster.server,
    caPem: read(f.caCert),
    certPem: read(f.cert("admin")),
    keyPem: read(f.key("admin")),
  };
}

/** Issues the cluster's CA, serving certificate, component and node identities and SA key; writes kubeconfigs. */
export function issueClusterCredentials(cluster: ClusterPlan): void {
  const f = clusterFiles(cluster);
  fs.mkdirSync(f.pki, { recursive: true, mode: 0o700 });
  generateCa(f.pki, `lab-${cluster.name}-ca`);
  issueLeaf(
    f.pki,
    "apiserver",
    "/CN=kube-apiserver",
    servingExtensions(apiServerSans(cluster.apiAddress, cluster.serviceIp)),
    CERT_DAYS,
  );
  const identities: [string, string][] = [
    ...Object.entries(COMPONENT_IDENTITIES),
    ...cluster.nodes.map((n): [string, string] => [
      `node-${n.name}`,
      `/O=system:nodes/CN=system:node:${n.name}`,
    ]),
  ];
  for (const [name, subject] of identities) {
    issueLeaf(f.pki, name, subject, [...CLIENT_EXTENSIONS], CERT_DAYS);
    fs.writeFileSync(f.kubeconfig(name), identityKubeconfig(cluster, name), { mode: 0o600 });
  }
  generateServiceAccountKey(f.pki);
}

/** The place of a cluster's control-plane processes. */
export function controlPlanePlace(lab: LabPlan, cluster: ClusterPlan): Place {
  return {
    netns: lab.netns,
    cgroup: `${lab.cgroup}/${cluster.name}-control-plane`,
    runDir: clusterFiles(cluster).runDir,
  };
}

function etcdArgs(cluster: ClusterPlan): string[] {
  const f = clusterFiles(cluster);
  const client = `http://${cluster.apiAddress}:2379`;
  const peer = `http://${cluster.apiAddress}:2380`;
  return [
    `--name=${cluster.name}`,
    `--data-dir=${f.etcdData}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${cluster.name}=${peer}`,
    // the lab's clusters are throw-away: skipping fsync keeps a 2-core machine responsive
    "--unsafe-no-fsync",
    "--log-level=warn",
  ];
}

function apiServerArgs(cluster: ClusterPlan): string[] {
  const f = clusterFiles(cluster);
  const issuer = "https://kubernetes.default.svc.cluster.local";
  return [
    `--bind-address=${cluster.apiAddress}`,
    `--advertise-address=${cluster.apiAddress}`,
    `--secure-port=${API_PORT}`,
    `--etcd-servers=http://${cluster.apiAddress}:2379`,
    `--tls-cert-file=${f.cert("apiserver")}`,
    `--tls-private-key-file=${f.key("apiserver")}`,
    `--client-ca-file=${f.caCert}`,
    `--kubelet-client-certificate=${f.cert("apiserver-kubelet-client")}`,
    `--kubelet-client-key=${f.key("apiserver-kubelet-client")}`,
    // nodes have no DNS names here: reach kubelets (logs, exec) at their address
    "--kubelet-preferred-address-types=InternalIP,Hostname",
    `--service-account-issuer=${issuer}`,
    `--api-audiences=${issuer}`,
    `--service-account-key-file=${f.saPublicKey}`,
    `--service-account-signing-key-file=${f.key("sa")}`,
    `--service-cluster-ip-range=${cluster.serviceCidr}`,
    "--authorization-mode=Node,RBAC",
    "--enable-admission-plugins=NodeRestriction",
    "--allow-privileged=true",
    `--cert-dir=${path.join(cluster.dir, "apiserver")}`,
    "--profiling=false",
  ];
}

function controllerManagerArgs(cluster: ClusterPlan): string[] {
  const f = clusterFiles(cluster);
  const kubeconfig = f.kubeconfig("controller-manager");
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    `--bind-address=${cluster.apiAddress}`,
    `--cert-dir=${path.join(cluster.dir, "controller-manager")}`,
    "--leader-elect=false",
    "--use-service-account-credentials=true",
    `--service-account-private-key-file=${f.key("sa")}`,
    `--root-ca-file=${f.caCert}`,
    `--cluster-signing-cert-file=${f.caCert}`,
    `--cluster-signing-key-file=${f.key("ca")}`,
    `--cluster-cidr=${cluster.podCidr}`,
    "--profiling=false",
  ];
}

function schedulerArgs(cluster: ClusterPlan): string[] {
  const kubeconfig = clusterFiles(cluster).kubeconfig("scheduler");
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    `--bind-address=${cluster.apiAddress}`,
    "--leader-elect=false",
    "--profiling=false",
  ];
}

/** Waits for `probe`, failing early with the process's log tail when it exits. */
export async function awaitProcess(
  what: string,
  proc: { readonly name: string; readonly pid: number; readonly logPath: string },
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  try {
    await waitFor(
      what,
      async () => {
        if (!isRunning(proc.pid)) throw new Error(`${proc.name} exited`);
        return probe();
      },
      timeoutMs,
    );
  } catch (e) {
    throw new Error(
      `${(e as Error).message}\n--- ${proc.name} log (last lines) ---\n${logTail(proc.logPath)}`,
    );
  }
}

/**
 * Starts the cluster's control plane and resolves once it serves: kube-apiserver ready, the controllers
 * reconciling (the `default` ServiceAccount exists) and the scheduler healthy.
 */
export async function startControlPlane(
  lab: LabPlan,
  cluster: ClusterPlan,
  timeoutMs = 120_000,
): Promise<void> {
  const env = currentEnv();
  const place = controlPlanePlace(lab, cluster);
  preparePlace(place);
  const creds = adminCredentials(cluster);
  const get = async (p: string) => (await callApi(creds, "GET", p)).status === 200;

  const etcd = startIn(place, "etcd", requireBinary("etcd"), etcdArgs(cluster), env);
  const apiServer = startIn(
    place,
    "kube-apiserver",
    requireBinary("kube-apiserver"),
    apiServerArgs(cluster),
    env,
  );
  await awaitProcess(
    `cluster ${cluster.name}: kube-apiserver /readyz`,
    apiServer,
    () => get("/readyz"),
    timeoutMs,
  );
  if (!isRunning(etcd.pid)) throw new Error(`cluster ${cluster.name}: etcd exited\n${logTail(etcd.logPath)}`);
  const kcm = startIn(
    place,
    "kube-controller-manager",
    requireBinary("kube-controller-manager"),
    controllerManagerArgs(cluster),
    env,
  );
  const scheduler = startIn(
    place,
    "kube-scheduler",
    requireBinary("kube-scheduler"),
    schedulerArgs(cluster),
    env,
  );
  await awaitProcess(
    `cluster ${cluster.name}: the default ServiceAccount (kube-controller-manager reconciling)`,
    kcm,
    () => get("/api/v1/namespaces/default/serviceaccounts/default"),
    timeoutMs,
  );
  await awaitProcess(
    `cluster ${cluster.name}: kube-scheduler serving`,
    scheduler,
    async () => /Serving securely/.test(logTail(scheduler.logPath, 200)),
    timeoutMs,
  );
}
