/**
 * The estate the push-members bench registers members into, on loopback addresses 127.0.14.x: a host
 * cluster for the containerized control plane, a kube-apiserver standing in for karmada-apiserver
 * (trusted both ways through a Karmada CA the program brings) and
 * one loopback API server per member (etcd + kube-apiserver + kube-controller-manager, whose token
 * controller fills the members' token Secrets). The stack runs the repository's estate composition
 * (stacks/estate.ts) as an inline program with however many push members are asked for.
 *
 * What a push registration needs from Karmada besides its CRDs: the `cluster.karmada.io/v1alpha1`
 * Cluster API, which karmada-aggregated-apiserver serves behind the APIService the control plane
 * creates. Nothing runs behind that APIService here (no kubelet), so once the control plane is up the
 * stand-in serves the Cluster API itself: a CRD for `clusters.cluster.karmada.io` and the APIService
 * turned local (no service), which hands the group to that CRD.
 */
import * as pulumi from "@pulumi/pulumi";
import { Stack } from "@pulumi/pulumi/automation";
import * as path from "node:path";
import { buildEstate } from "../../stacks/estate";
import { crdSourceForTests } from "../../devkit/engine/crds";
import { createEngineEnv, EngineEnv } from "../../devkit/engine/env";
import { inlineProgramStack } from "../../devkit/engine/workspace";
import { CaPair, generateCa, LoopbackCluster, startCluster, waitFor } from "../../devkit/kube";
import { callApi } from "../../lib/kube/rest";

/** Loopback addresses of this bench (its own range). */
const MEMBERS_ESTATE_ADDRESSES = {
  host: "127.0.14.1",
  karmadaApi: "127.0.14.2",
  member: (index: number) => `127.0.14.${10 + index}`,
} as const;

/** The running estate. */
export interface MembersEstate {
  readonly engine: EngineEnv;
  readonly host: LoopbackCluster;
  readonly karmadaApi: LoopbackCluster;
  readonly members: readonly LoopbackCluster[];
  /** The stack; its program registers {@link setMemberCount} push members. */
  readonly stack: Stack;
  /** How many members the next `up` registers (0 removes them all). */
  setMemberCount(count: number): void;
  /** Stops every cluster and removes every temporary directory. */
  stop(): Promise<void>;
}

const clusterName = (index: number) => `member${index}`;

/** The stack program: the estate of stacks/estate.ts with the first `count` member clusters, push mode. */
function estateProgram(
  host: LoopbackCluster,
  karmadaApi: LoopbackCluster,
  karmadaCa: CaPair,
  members: readonly LoopbackCluster[],
  count: () => number,
): () => Promise<void> {
  return async () => {
    const registered = members.slice(0, count());
    buildEstate({
      hostKubeconfig: pulumi.secret(host.kubeconfig),
      hostContext: host.contextName,
      etcd: {
        mode: "inCluster",
        // no kubelet: pods never run, so nothing may wait for them
        inCluster: { replicas: 1, storage: { kind: "pvc", size: "1Gi" }, awaitWorkloads: false },
      },
      controlPlane: {
        awaitWorkloads: false,
        apiServer: { externalEndpoint: `${karmadaApi.address}:${new URL(karmadaApi.server).port}` },
        pki: { karmadaCa: { certPem: karmadaCa.certPem, keyPem: pulumi.secret(karmadaCa.keyPem) } },
      },
      crds: crdSourceForTests(),
      members: registered.map((m, i) => ({
        clusterName: clusterName(i),
        mode: "Push",
        apiEndpoint: m.server,
      })),
      memberKubeconfigs: pulumi.secret(
        Object.fromEntries(registered.map((m, i) => [clusterName(i), m.kubeconfig])),
      ),
    });
  };
}

/** The Cluster API as the stand-in serves it: a CRD with the Cluster's names, any content accepted. */
const CLUSTER_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "clusters.cluster.karmada.io" },
  spec: {
    group: "cluster.karmada.io",
    scope: "Cluster",
    names: { plural: "clusters", singular: "cluster", kind: "Cluster", listKind: "ClusterList" },
    versions: [
      {
        name: "v1alpha1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

/**
 * Makes the stand-in serve the Cluster API from a CRD, once the control plane created its APIService: that
 * APIService (which points at karmada-aggregated-apiserver) gives way to the one the API server registers
 * for the CRD's group. Pulumi's state keeps the control plane's APIService; no measured `up` refreshes it.
 */
export async function serveClusterApiLocally(karmadaApi: LoopbackCluster): Promise<void> {
  const creds = karmadaApi.credentials;
  const apiService = "/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.cluster.karmada.io";
  const removed = await callApi(creds, "DELETE", apiService);
  if (removed.status !== 200 && removed.status !== 404) throw new Error(`APIService: HTTP ${removed.status}`);
  await waitFor(
    "the remote APIService to be gone",
    async () => (await callApi(creds, "GET", apiService)).status === 404,
    60_000,
  );
  const crd = await callApi(
    creds,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    CLUSTER_CRD,
  );
  if (crd.status !== 201) throw new Error(`Cluster CRD: HTTP ${crd.status} ${crd.body?.message ?? ""}`);
  const established = async () => {
    const live = await callApi(
      creds,
      "GET",
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CLUSTER_CRD.metadata.name}`,
    );
    const conditions: { type: string; status: string }[] = live.body?.status?.conditions ?? [];
    return conditions.some((c) => c.type === "Established" && c.status === "True");
  };
  await waitFor("the Cluster CRD to be established", established, 60_000);
  await waitFor(
    "cluster.karmada.io/v1alpha1 to be served",
    async () => (await callApi(creds, "GET", "/apis/cluster.karmada.io/v1alpha1/clusters")).status === 200,
    60_000,
  );
}

/**
 * Starts clusters `0 … count − 1` two at a time (more at once overload a 2-core machine) and returns them
 * in index order; each one is handed to `track` as soon as it runs, so that a failure stops it too.
 */
async function startInPairs(
  count: number,
  start: (index: number) => Promise<LoopbackCluster>,
  track: (cluster: LoopbackCluster) => void,
): Promise<LoopbackCluster[]> {
  const started: LoopbackCluster[] = [];
  for (let i = 0; i < count; i += 2) {
    const batch = await Promise.allSettled(
      [i, i + 1].filter((j) => j < count).map((j) => start(j).then((c) => (track(c), c))),
    );
    const failed = batch.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    started.push(...batch.map((s) => (s as PromiseFulfilledResult<LoopbackCluster>).value));
  }
  return started;
}

/**
 * Starts the clusters (host, karmada-api stand-in, `memberCount` members) and creates the stack with no
 * members yet. Deploy the control plane with `stack.up()`, then call {@link serveClusterApiLocally}.
 */
export async function startMembersEstate(memberCount: number): Promise<MembersEstate> {
  const engine = createEngineEnv("pk-bench-members-");
  const clusters: LoopbackCluster[] = [];
  const stop = async () => {
    for (const c of clusters) await c.stop();
    engine.cleanup();
  };
  try {
    const karmadaCa = generateCa(path.join(engine.dir, "karmada-ca"), "karmada-bench-ca");
    const dir = (name: string) => path.join(engine.dir, name);
    const A = MEMBERS_ESTATE_ADDRESSES;
    const track = (c: LoopbackCluster) => clusters.push(c);
    const [host, karmadaApi] = await startInPairs(
      2,
      (i) =>
        i === 0
          ? startCluster({ name: "host", address: A.host, dir: dir("host") })
          : startCluster({
              name: "karmada-api",
              address: A.karmadaApi,
              ca: karmadaCa,
              dir: dir("karmada-api"),
            }),
      track,
    );
    const members = await startInPairs(
      memberCount,
      (i) => startCluster({ name: clusterName(i), address: A.member(i), dir: dir(clusterName(i)) }),
      track,
    );
    let count = 0;
    const program = estateProgram(host, karmadaApi, karmadaCa, members, () => count);
    const stack = await inlineProgramStack(engine, { stackName: "push-members", program });
    return { engine, host, karmadaApi, members, stack, setMemberCount: (n) => (count = n), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
