import { stringify } from "yaml";
import { ControlPlaneConfig } from "../controlplane/config";
import { resolveControlPlaneSettings } from "../controlplane/resolve";
import { validateControlPlaneConfig } from "../controlplane/validate";
import {
  CONTAINERIZED_INSTALL_ORDER,
  InstallPhase,
  THROUGH_KARMADA_PROVIDER,
} from "../controlplane/installOrder";
import { EtcdInClusterArgs } from "../etcd/config";
import { etcdFollowingControlPlane } from "../etcd/followControlPlane";
import { resolveEtcdInClusterSettings } from "../etcd/resolve";
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
  const etcdSettings = resolveEtcdInClusterSettings(etcdFollowingControlPlane(controlPlane, etcd), "etcd");
  const settings = resolveControlPlaneSettings("karmada", controlPlane, {
    endpoints: [etcdClientServiceUrl(etcdSettings)],
  });
  const etcdObjects = etcdInClusterManifests(etcdSettings);
  const workloads = hostWorkloadManifests(settings);
  const groups = karmadaApiObjects(settings);
  // each install phase's objects; the CRD bundle comes separately and Secrets come from the PKI
  const byPhase: Record<InstallPhase, KubeObject[]> = {
    etcd: [...etcdObjects.cluster, ...etcdObjects.backup],
    secrets: [],
    "karmada-apiserver": workloads.apiServer,
    "aggregated-apiserver": workloads.aggregatedApiServer,
    "karmada-provider": [],
    "karmada-namespaces": groups.namespaces,
    crds: [],
    "webhook-configurations": groups.crdDependents,
    apiservices: groups.apiServices,
    rbac: groups.rbac,
    bootstrap: groups.bootstrap,
    controllers: workloads.controllers,
  };
  const inOrder = (onKarmada: boolean) =>
    CONTAINERIZED_INSTALL_ORDER.filter(
      (step) => THROUGH_KARMADA_PROVIDER.includes(step.phase) === onKarmada,
    ).flatMap((step) => byPhase[step.phase]);
  // the namespace every host object lives in comes first
  const host = [namespaceObject(settings.namespace), ...inOrder(false)];
  const karmada = inOrder(true);
  const placeholders = karmada.flatMap((o) =>
    findPlaceholders(o).map((use) => `${o.kind}/${o.metadata.name}: ${use.path} = ${use.token}`),
  );
  return { hostCluster: toYaml(host), karmadaApiServer: toYaml(karmada), placeholders };
}
