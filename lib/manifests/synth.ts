import { stringify } from "yaml";
import { ControlPlaneConfig } from "../controlplane/config";
import { resolveControlPlaneSettings } from "../controlplane/defaults";
import { validateControlPlaneConfig } from "../controlplane/validate";
import { EtcdInClusterArgs } from "../etcd/config";
import { resolveEtcdInClusterSettings } from "../etcd/resolve";
import { resolveImage } from "../catalog/images";
import { DEFAULT_KARMADA_VERSION, findRelease } from "../catalog/releases";
import type { KubeObject } from "../kube/object";
import { etcdClientServiceUrl, etcdInClusterManifests } from "./etcd";
import { karmadaApiObjects } from "./karmada";
import { namespaceObject } from "./namespace";
import { findPlaceholders } from "./placeholders";
import { hostWorkloadManifests } from "./workloads";

/** Plain YAML of an estate for GitOps users, per target cluster. */
export interface SynthesizedEstate {
  /** Objects for the host cluster (namespace, etcd, control-plane workloads), in apply order. */
  readonly hostCluster: string;
  /** Objects for karmada-apiserver (apply after the CRDs), in apply order. */
  readonly karmadaApiServer: string;
  /** Placeholder tokens still in the output, with where they are: fill them from your PKI. */
  readonly placeholders: string[];
}

const toYaml = (objects: KubeObject[]): string => objects.map((o) => stringify(o)).join("---\n");

/**
 * Synthesizes the non-secret manifests of an in-cluster estate as plain YAML (pure). Secrets —
 * certificates, keys, kubeconfigs — are never rendered: the workloads reference them by name and they
 * must come from the PKI (`pulumi up` creates them as Pulumi secrets).
 */
export function synthesizeEstate(
  controlPlane: ControlPlaneConfig,
  etcd: Partial<EtcdInClusterArgs>,
): SynthesizedEstate {
  validateControlPlaneConfig(controlPlane);
  const namespace = controlPlane.namespace ?? "karmada-system";
  const release = findRelease(controlPlane.karmadaVersion ?? DEFAULT_KARMADA_VERSION);
  const etcdSettings = resolveEtcdInClusterSettings(
    { namespace, image: resolveImage("etcd", release, controlPlane.images), ...etcd } as EtcdInClusterArgs,
    "etcd",
  );
  const settings = resolveControlPlaneSettings("karmada", controlPlane, {
    endpoints: [etcdClientServiceUrl(etcdSettings)],
  });
  const etcdObjects = etcdInClusterManifests(etcdSettings);
  const workloads = hostWorkloadManifests(settings);
  const host = [
    namespaceObject(namespace),
    ...etcdObjects.cluster,
    ...etcdObjects.backup,
    ...workloads.apiServer,
    ...workloads.aggregatedApiServer,
    ...workloads.controllers,
  ];
  const groups = karmadaApiObjects(settings);
  const karmada = [
    ...groups.namespaces,
    ...groups.crdDependents,
    ...groups.apiServices,
    ...groups.rbac,
    ...groups.bootstrap,
  ];
  const placeholders = karmada.flatMap((o) =>
    findPlaceholders(o).map((use) => `${o.kind}/${o.metadata.name}: ${use.path} = ${use.token}`),
  );
  return { hostCluster: toYaml(host), karmadaApiServer: toYaml(karmada), placeholders };
}
