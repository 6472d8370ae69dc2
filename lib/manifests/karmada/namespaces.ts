import { k8s } from "cdk8s-plus-33";
import type { KubeObject } from "../../kube/object";
import { objectNames } from "../../controlplane/names";
import { synthChart } from "./chart";

/** Label Karmada puts on the namespaces it owns, so tooling can tell them from user namespaces. */
const KARMADA_SYSTEM_LABEL = { "karmada.io/system": "true" } as const;

/**
 * Namespaces created inside karmada-apiserver: `karmada-system` (Karmada's own objects, the backing
 * Services of the APIServices) and `karmada-cluster` (member credentials written by join/register).
 * `kube-public` is not listed: karmada-apiserver creates it itself at start-up.
 */
export function karmadaNamespaces(): KubeObject[] {
  return synthChart("karmada-namespaces", (chart) => {
    for (const name of [objectNames.karmadaSystemNamespace, objectNames.clusterNamespace]) {
      new k8s.KubeNamespace(chart, name, { metadata: { name, labels: { ...KARMADA_SYSTEM_LABEL } } });
    }
  });
}
