import type { KubeObject } from "../kube/apply";
import { MemberSettings } from "./config";
import { CLUSTER_NAMESPACE, KARMADA_SYSTEM_LABEL, memberObjectNames } from "./names";

/** API version and kind of the Cluster object (served by karmada-aggregated-apiserver, not a CRD). */
export const CLUSTER_API_VERSION = "cluster.karmada.io/v1alpha1";

/**
 * The `Cluster` object of a member. Push: it references the credential Secrets `<cluster>` and
 * `<cluster>-impersonator` in karmada-cluster. Pull: the agent fills `secretRef`,
 * `impersonatorSecretRef` and `id` itself when it registers, so they are left out here.
 * @param id the member's kube-system namespace UID (what karmadactl records), when known.
 */
export function clusterObject(settings: MemberSettings, id?: string): KubeObject {
  const names = memberObjectNames(settings.clusterName);
  const push = settings.mode === "Push";
  const spec: Record<string, unknown> = {
    syncMode: settings.mode,
    apiEndpoint: settings.apiEndpoint,
    ...(push && id !== undefined ? { id } : {}),
    ...(push
      ? {
          secretRef: { namespace: CLUSTER_NAMESPACE, name: names.credentialSecret },
          impersonatorSecretRef: { namespace: CLUSTER_NAMESPACE, name: names.impersonatorSecret },
          // false is the API's zero value, which the server omits: sending it would diff on every preview
          ...(settings.insecureSkipTLSVerification ? { insecureSkipTLSVerification: true } : {}),
        }
      : {}),
    ...(settings.proxyURL ? { proxyURL: settings.proxyURL } : {}),
    ...(settings.provider ? { provider: settings.provider } : {}),
    ...(settings.region ? { region: settings.region } : {}),
    ...(settings.zones.length ? { zones: [...settings.zones] } : {}),
    ...(settings.taints.length ? { taints: settings.taints.map((t) => ({ ...t })) } : {}),
  };
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: "Cluster",
    metadata: { name: settings.clusterName, labels: { ...KARMADA_SYSTEM_LABEL } },
    spec,
  };
}
