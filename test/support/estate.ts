/** Builds an EtcdCluster + KarmadaControlPlane under recording mocks, as a stack program would. */
import * as k8s from "@pulumi/kubernetes";
import { join } from "node:path";
import { EtcdCluster, EtcdClusterArgs } from "../../components/etcdCluster";
import { KarmadaControlPlane, KarmadaControlPlaneArgs } from "../../components/karmadaControlPlane";
import { Registration, recordResources, settle } from "./mocks";

/** Our own small fixture CRD bundle (test/fixtures/crds), so unit tests need no network. */
export const FIXTURE_CRD_SOURCE = { kind: "path", path: join(__dirname, "../fixtures/crds") } as const;

export interface Estate {
  readonly records: Registration[];
  readonly etcd: EtcdCluster;
  readonly controlPlane: KarmadaControlPlane;
}

export async function buildEstate(
  controlPlane: Partial<KarmadaControlPlaneArgs> = {},
  etcd: EtcdClusterArgs = { inCluster: { replicas: 3 } },
): Promise<Estate> {
  const records = recordResources();
  const host = new k8s.Provider("host", { kubeconfig: "~/.kube/config", clusterIdentifier: "host" });
  const etcdCluster = new EtcdCluster("etcd", etcd, { provider: host });
  const cp = new KarmadaControlPlane(
    "karmada",
    { crds: FIXTURE_CRD_SOURCE, ...controlPlane, etcd: etcdCluster },
    { provider: host },
  );
  const [karmadaObjects, controllers] = await Promise.all([cp.karmadaObjectsReady, cp.controllersReady]);
  await settle(host, etcdCluster, cp, ...karmadaObjects, ...controllers);
  return { records, etcd: etcdCluster, controlPlane: cp };
}

/** Registrations of Kubernetes objects, keyed `Kind/namespace/name`. */
export function kubeObjects(records: Registration[]): Map<string, Registration> {
  const out = new Map<string, Registration>();
  for (const r of records.filter(
    (r) => r.type.startsWith("kubernetes:") && r.custom && !r.type.startsWith("pulumi:"),
  )) {
    const md = r.inputs.metadata ?? {};
    out.set(`${r.inputs.kind ?? r.type.split(":").pop()}/${md.namespace ?? ""}/${md.name}`, r);
  }
  return out;
}
