import type { KubeObject } from "../kube/object";
import { MemberSettings } from "./settings";
import { CLUSTER_NAMESPACE, KARMADA_SYSTEM_LABEL } from "./names";

/** API version and kind of the Cluster object (served by karmada-aggregated-apiserver, not a CRD). */
const CLUSTER_API_VERSION = "cluster.karmada.io/v1alpha1";

/**
 * The `Cluster` object of a member, with every spec field its registrar writes, the same values:
 * - Push, as `karmadactl join` writes it: the credential Secrets `<cluster>` and
 *   `<cluster>-impersonator` in karmada-cluster (created by the registration).
 * - Pull, as karmada-agent writes it at start-up (cmd/agent/app `generateClusterInControllerPlane`,
 *   from its flags): `id`, `apiEndpoint`, `proxyURL`, `provider`, `region`, `zones`, and — when it
 *   reports secrets (`pull.reportSecrets`) — the references to the Secrets it creates under the same
 *   names. The agent may create a Cluster but not update one: it refuses to start unless the existing
 *   object already holds what it computes, and it never rewrites an equal one, so neither side
 *   changes the other's fields and a second `pulumi up` shows no diff.
 * `taints` are ours alone in both modes. `spec.id` is added by {@link clusterWithId}.
 */
export function clusterObject(settings: MemberSettings): KubeObject {
  const names = settings.names;
  const push = settings.mode === "Push";
  // the agent reports both Secrets or none: karmadactl's `--report-secrets` default, or `None`
  const secretRefs = push || settings.pull!.reportSecrets;
  const spec: Record<string, unknown> = {
    syncMode: settings.mode,
    apiEndpoint: settings.apiEndpoint,
    ...(secretRefs
      ? {
          secretRef: { namespace: CLUSTER_NAMESPACE, name: names.credentialSecret },
          impersonatorSecretRef: { namespace: CLUSTER_NAMESPACE, name: names.impersonatorSecret },
        }
      : {}),
    // false is the API's zero value, which the server omits: sending it would diff on every preview.
    // Pull: the agent writes its in-cluster config's value, false.
    ...(push && settings.insecureSkipTLSVerification ? { insecureSkipTLSVerification: true } : {}),
    ...(settings.proxyURL ? { proxyURL: settings.proxyURL } : {}),
    ...(settings.provider ? { provider: settings.provider } : {}),
    ...(settings.region ? { region: settings.region } : {}),
    ...(settings.zones.length ? { zones: [...settings.zones] } : {}),
    ...(settings.taints.length ? { taints: settings.taints.map((t) => ({ ...t })) } : {}),
  };
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: "Cluster",
    metadata: {
      name: settings.clusterName,
      labels: { ...KARMADA_SYSTEM_LABEL },
      // pull: the agent writes the same fields; ours win (it never updates an existing Cluster)
      ...(push ? {} : { annotations: { "pulumi.com/patchForce": "true" } }),
    },
    spec,
  };
}

/**
 * The Cluster with `spec.id`, the member's kube-system namespace UID — known only once the member is
 * read, so the builders leave it out.
 */
export function clusterWithId(cluster: KubeObject, id: string | undefined): KubeObject {
  const spec = cluster.spec as Record<string, unknown>;
  return id === undefined ? cluster : { ...cluster, spec: { ...spec, id } };
}
