/**
 * The containerized estate under test: the repository's stacks program deployed by the real engine to a
 * loopback host cluster, with a second loopback kube-apiserver standing in for karmada-apiserver.
 *
 * Why a stand-in: the control plane's workloads never run here (no kubelet: pods stay Pending), so the
 * karmada-apiserver Deployment cannot serve the Karmada-side objects (namespaces, CRDs, webhooks,
 * APIServices, RBAC, bootstrap). `apiServer.externalEndpoint` points the component's Karmada provider
 * and admin kubeconfig at the stand-in instead. To make that kubeconfig trusted both ways, the test
 * generates the Karmada CA and brings it with `pki.karmadaCa` (certificate plain, key as a secret):
 * the stand-in serves with a certificate from that CA and checks client certificates against it, so the
 * admin certificate our PKI issues (system:admin / system:masters) is accepted as cluster admin.
 */
import { Stack } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT, testbedEnv } from "../kube/binaries";
import { LoopbackCluster, startCluster } from "../kube/cluster";
import { CaPair, generateCa } from "../kube/pki";
import { KarmadaConfig, setKarmadaConfig } from "./config";
import { EngineEnv, createEngineEnv } from "./env";
import { stacksProgramStack } from "./workspace";

/** Where the clusters listen. */
export interface EstateAddresses {
  readonly host: string;
  readonly karmadaApi: string;
}

/** A running estate fixture. */
export interface EstateFixture {
  readonly engine: EngineEnv;
  readonly host: LoopbackCluster;
  /** The kube-apiserver process playing karmada-apiserver. */
  readonly karmadaApi: LoopbackCluster;
  readonly karmadaCa: CaPair;
  readonly stack: Stack;
  /** The CRD source the stack uses: the test bed's release bundle when built, else our fixture bundle. */
  readonly crds: { readonly kind: "path"; readonly path: string };
  /** The stack config for `controlPlane` overrides (merged over the base), as {@link configure} sets it. */
  config(controlPlane?: Record<string, unknown>): KarmadaConfig;
  /** Replaces the stack's `karmada:*` config with {@link config}(overrides), the CA key set as a secret. */
  configure(controlPlane?: Record<string, unknown>): Promise<void>;
  /** Stops the clusters and removes every temporary directory. */
  stop(): Promise<void>;
}

/** The Karmada CRD bundle: the test bed's release tarball when built, else test/fixtures/crds. */
export function crdSourceForTests(): { kind: "path"; path: string } {
  const bundle = testbedEnv().env.TESTBED_KARMADA_CRDS;
  if (bundle && fs.existsSync(bundle)) return { kind: "path", path: bundle };
  return { kind: "path", path: path.join(REPO_ROOT, "test", "fixtures", "crds") };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep merge of plain objects (arrays and scalars of `over` replace). */
export function mergeConfig(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] =
      isPlainObject(v) && isPlainObject(out[k]) ? mergeConfig(out[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

/**
 * Starts both clusters, generates the Karmada CA and creates the stack `stackName` (configured, not
 * deployed), running the stacks program of the tree at `programRoot` (default: this repository).
 */
export async function startEstateFixture(
  stackName: string,
  addresses: EstateAddresses,
  programRoot?: string,
): Promise<EstateFixture> {
  const engine = createEngineEnv(`pk-${stackName}-`);
  const karmadaCa = generateCa(path.join(engine.dir, "karmada-ca"), "karmada-e2e-ca");
  const started = await Promise.allSettled([
    startCluster({ name: "host", address: addresses.host, dir: path.join(engine.dir, "host") }),
    startCluster({
      name: "karmada-api",
      address: addresses.karmadaApi,
      ca: karmadaCa,
      dir: path.join(engine.dir, "karmada-api"),
    }),
  ]);
  const clusters = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const stopAll = async () => {
    for (const c of clusters) await c.stop();
    engine.cleanup();
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  const [host, karmadaApi] = clusters;
  const crds = crdSourceForTests();
  const stack = await stacksProgramStack(engine, stackName, programRoot);
  const config = (controlPlane: Record<string, unknown> = {}): KarmadaConfig => ({
    hostKubeconfig: host.kubeconfig,
    hostContext: host.contextName,
    etcd: {
      mode: "inCluster",
      // no kubelet here: the etcd pod never runs, so Pulumi must not wait for it; the PVC stays Pending
      inCluster: { replicas: 1, storage: { kind: "pvc", size: "1Gi" }, awaitWorkloads: false },
    },
    controlPlane: mergeConfig(
      {
        // no kubelet here: control-plane pods never run, so Pulumi must not wait for them
        awaitWorkloads: false,
        apiServer: { externalEndpoint: `${karmadaApi.address}:${new URL(karmadaApi.server).port}` },
        pki: { karmadaCa: { certPem: karmadaCa.certPem } },
      },
      controlPlane,
    ) as KarmadaConfig["controlPlane"],
    crds,
  });
  const configure = (controlPlane?: Record<string, unknown>) =>
    setKarmadaConfig(stack, config(controlPlane), { "controlPlane.pki.karmadaCa.keyPem": karmadaCa.keyPem });
  await configure();
  return { engine, host, karmadaApi, karmadaCa, stack, crds, config, configure, stop: stopAll };
}
