import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { HelmChartConfig } from "../../lib/addons/config";
import { manifestPhases, secretStrings } from "../../lib/addons/manifests";
import { applyObjects, KubeObject, kubeResourceName } from "../../lib/kube/apply";
import { createSecret } from "../../lib/kube/secrets";

/** One place generic objects go: a cluster's provider, what must exist there first, a name prefix. */
export interface GenericTarget {
  readonly prefix: string;
  readonly provider: pulumi.ProviderResource;
  readonly dependsOn: pulumi.Resource[];
}

/**
 * Applies manifests to one target, one Pulumi resource per object: namespaces and CRDs first, then
 * Secrets (created natively, their content a Pulumi secret) and everything else.
 */
export function applyManifests(
  parent: pulumi.Resource,
  target: GenericTarget,
  objects: readonly KubeObject[],
): pulumi.Resource[] {
  const phases = manifestPhases(objects);
  const foundation = applyObjects(target.prefix, phases.foundation, {
    parent,
    provider: target.provider,
    dependsOn: target.dependsOn,
  });
  const after = [...target.dependsOn, ...foundation];
  const secrets = phases.secrets.map((obj) =>
    createSecret(
      kubeResourceName(target.prefix, obj),
      {
        name: obj.metadata.name,
        namespace: obj.metadata.namespace ?? "default",
        labels: obj.metadata.labels as Record<string, string> | undefined,
        type: obj.type as string | undefined,
        data: secretStrings(obj),
      },
      { parent, provider: target.provider, dependsOn: after },
    ),
  );
  const rest = applyObjects(target.prefix, phases.rest, {
    parent,
    provider: target.provider,
    dependsOn: after,
  });
  return [...foundation, ...secrets, ...rest];
}

/** Installs a Helm chart on one target as `helm.v4.Chart` (one Pulumi resource per rendered object). */
export function installChart(
  parent: pulumi.Resource,
  target: GenericTarget,
  chart: HelmChartConfig,
): pulumi.Resource {
  return new k8s.helm.v4.Chart(
    target.prefix,
    {
      chart: chart.chart,
      version: chart.version,
      repositoryOpts: chart.repo ? { repo: chart.repo } : undefined,
      namespace: chart.namespace,
      values: chart.values as Record<string, pulumi.Input<unknown>> | undefined,
      skipCrds: chart.skipCrds,
    },
    { parent, provider: target.provider, dependsOn: target.dependsOn },
  );
}
