/**
 * The containerized estate a lab runs, as the stacks program's `karmada:*` settings: etcd in the host
 * cluster (three replicas on three nodes, claims bound by the lab's local-path storage), the control
 * plane as workloads reached through a NodePort of the host nodes, a push member and a pull member, and
 * every image from the lab registry (the offline install: `images.registry` rewrites them all). The
 * same settings a platform engineer would write for a small production host cluster, nothing stood in.
 */
import { DEFAULT_KARMADA_VERSION } from "../../lib/catalog";
import type { StackConfig } from "../../stacks/config";
import { testbedEnv } from "../testbed";
import type { Lab } from "./lab";
import { LabPlan, clusterOf } from "./plan";

/** The stack settings and the secrets to set at paths below `karmada:`. */
export interface LabEstateSettings {
  /** Plain `karmada:*` settings (the host kubeconfig, a secret, is `secrets.hostKubeconfig`). */
  readonly config: Omit<StackConfig, "hostKubeconfig" | "memberKubeconfigs">;
  /** Secret values by path below `karmada:` (`hostKubeconfig`, `memberKubeconfigs.member1` …). */
  readonly secrets: Readonly<Record<string, string>>;
  /** The Karmada API server's URL as handed out (the NodePort on the first host node). */
  readonly karmadaApiUrl: string;
}

/** What differs between estates sharing a lab. */
export interface LabEstateOptions {
  /** Host-cluster namespace of the control plane and etcd. @default "karmada-system" */
  readonly namespace?: string;
  /** NodePort of karmada-apiserver (30000–32767). @default 32443 */
  readonly nodePort?: number;
  /** etcd replicas. @default 3 */
  readonly etcdReplicas?: number;
  /** Register the lab's members (member1 push, member2 pull). @default true */
  readonly members?: boolean;
}

/** The Karmada CRD bundle the test bed built from the release's module (what users download). */
export function testbedCrdBundle(): string {
  const bundle = testbedEnv().env.TESTBED_KARMADA_CRDS;
  if (!bundle) throw new Error("the test bed has no Karmada CRD bundle (scripts/testbed/build.sh karmada)");
  return bundle;
}

/** The estate's plain settings on the lab of `plan` (no secrets, no CRD source: see {@link labEstateSettings}). */
export function labEstateConfig(
  plan: LabPlan,
  options: LabEstateOptions = {},
): Omit<LabEstateSettings["config"], "crds"> {
  const host = clusterOf(plan, "host");
  const nodePort = options.nodePort ?? 32443;
  return {
    hostContext: `lab-${host.name}`,
    etcd: {
      mode: "inCluster",
      inCluster: { replicas: options.etcdReplicas ?? 3, storage: { kind: "pvc", size: "1Gi" } },
    },
    controlPlane: {
      karmadaVersion: DEFAULT_KARMADA_VERSION,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      images: { registry: `${plan.registry}/karmada` },
      apiServer: {
        serviceType: "NodePort",
        nodePort,
        externalEndpoint: `${host.nodes[0].address}:${nodePort}`,
      },
    },
    members: memberClusters(plan, options).map((c, i) => ({
      clusterName: c.name,
      mode: i === 0 ? ("Push" as const) : ("Pull" as const),
      apiEndpoint: c.server,
    })),
  };
}

/** The lab's member clusters an estate registers: member1 (push) and member2 (pull), unless told not to. */
function memberClusters(plan: LabPlan, options: LabEstateOptions) {
  return (options.members ?? true) ? [clusterOf(plan, "member1"), clusterOf(plan, "member2")] : [];
}

/** The estate's settings on `lab`: the plain ones, the test bed's CRD bundle, the lab's kubeconfigs as secrets. */
export function labEstateSettings(lab: Lab, options: LabEstateOptions = {}): LabEstateSettings {
  const config = labEstateConfig(lab.plan, options);
  const api = config.controlPlane!.apiServer!;
  return {
    config: { ...config, crds: { kind: "path", path: testbedCrdBundle() } },
    secrets: {
      hostKubeconfig: lab.kubeconfig("host"),
      ...Object.fromEntries(
        memberClusters(lab.plan, options).map((c) => [`memberKubeconfigs.${c.name}`, lab.kubeconfig(c.name)]),
      ),
    },
    karmadaApiUrl: `https://${api.externalEndpoint}`,
  };
}
