/** One webhook served by karmada-webhook, as registered for Karmada v1.18. */
export interface KarmadaWebhook {
  /** Webhook name (unique within its configuration). */
  readonly name: string;
  /** URL path on karmada-webhook, e.g. `/mutate-propagationpolicy`. */
  readonly path: string;
  /** API groups of the rule (`*` = all). */
  readonly apiGroups: readonly string[];
  /** Resources of the rule (`*` = all). */
  readonly resources: readonly string[];
  /** Operations sent to the webhook. */
  readonly operations: readonly ("CREATE" | "UPDATE" | "DELETE")[];
  /** Scope of the matched resources. */
  readonly scope: "Namespaced" | "Cluster" | "*";
  /** @default "None" */
  readonly sideEffects?: "None" | "NoneOnDryRun";
  /** @default 3 */
  readonly timeoutSeconds?: number;
  /** Only objects carrying this label key are sent to the webhook. @default - every object */
  readonly objectLabelExists?: string;
}

/** A webhook on one resource of one group, for CREATE and UPDATE unless `extra` says otherwise. */
const hook = (
  name: string,
  path: string,
  group: string,
  resource: string,
  scope: KarmadaWebhook["scope"],
  extra: Partial<KarmadaWebhook> = {},
): KarmadaWebhook => ({
  name,
  path,
  apiGroups: [group],
  resources: [resource],
  operations: ["CREATE", "UPDATE"],
  scope,
  ...extra,
});

/** Mutating webhooks of karmada-webhook (Karmada v1.18). */
// prettier-ignore
export const MUTATING_WEBHOOKS: readonly KarmadaWebhook[] = [
  hook("propagationpolicy.karmada.io", "/mutate-propagationpolicy", "policy.karmada.io", "propagationpolicies", "Namespaced"),
  hook("clusterpropagationpolicy.karmada.io", "/mutate-clusterpropagationpolicy", "policy.karmada.io", "clusterpropagationpolicies", "Cluster"),
  hook("overridepolicy.karmada.io", "/mutate-overridepolicy", "policy.karmada.io", "overridepolicies", "Namespaced"),
  // Bindings are defaulted when created only; later updates come from controllers.
  hook("resourcebinding.karmada.io", "/mutate-resourcebinding", "work.karmada.io", "resourcebindings", "Namespaced", { operations: ["CREATE"] }),
  hook("clusterresourcebinding.karmada.io", "/mutate-clusterresourcebinding", "work.karmada.io", "clusterresourcebindings", "Cluster", { operations: ["CREATE"] }),
  hook("work.karmada.io", "/mutate-work", "work.karmada.io", "works", "Namespaced"),
  hook("autoscaling.karmada.io", "/mutate-federatedhpa", "autoscaling.karmada.io", "federatedhpas", "Namespaced"),
  hook("multiclusterservice.karmada.io", "/mutate-multiclusterservice", "networking.karmada.io", "multiclusterservices", "Namespaced"),
];

/**
 * Validating webhooks of karmada-webhook (Karmada v1.18). `clustertaintpolicy` is served by the v1.18
 * webhook and registered by upstream's reference manifests, though karmadactl init still omits it.
 */
// prettier-ignore
export const VALIDATING_WEBHOOKS: readonly KarmadaWebhook[] = [
  hook("propagationpolicy.karmada.io", "/validate-propagationpolicy", "policy.karmada.io", "propagationpolicies", "Namespaced"),
  hook("clusterpropagationpolicy.karmada.io", "/validate-clusterpropagationpolicy", "policy.karmada.io", "clusterpropagationpolicies", "Cluster"),
  hook("overridepolicy.karmada.io", "/validate-overridepolicy", "policy.karmada.io", "overridepolicies", "Namespaced"),
  hook("clusteroverridepolicy.karmada.io", "/validate-clusteroverridepolicy", "policy.karmada.io", "clusteroverridepolicies", "Cluster"),
  hook("config.karmada.io", "/validate-resourceinterpreterwebhookconfiguration", "config.karmada.io", "resourceinterpreterwebhookconfigurations", "Cluster"),
  // Validation runs the user's Lua scripts, which may take longer than the usual 3 s.
  hook("resourceinterpretercustomization.karmada.io", "/validate-resourceinterpretercustomization", "config.karmada.io", "resourceinterpretercustomizations", "Cluster", { timeoutSeconds: 10 }),
  hook("federatedresourcequota.karmada.io", "/validate-federatedresourcequota", "policy.karmada.io", "federatedresourcequotas", "Namespaced"),
  hook("multiclusteringress.karmada.io", "/validate-multiclusteringress", "networking.karmada.io", "multiclusteringresses", "Namespaced"),
  hook("federatedhpa.karmada.io", "/validate-federatedhpa", "autoscaling.karmada.io", "federatedhpas", "Namespaced"),
  hook("cronfederatedhpa.karmada.io", "/validate-cronfederatedhpa", "autoscaling.karmada.io", "cronfederatedhpas", "Namespaced"),
  hook("multiclusterservice.karmada.io", "/validate-multiclusterservice", "networking.karmada.io", "multiclusterservices", "Namespaced"),
  // Guards deletion of any object labelled as protected, whatever its kind.
  hook("resourcedeletionprotection.karmada.io", "/validate-resourcedeletionprotection", "*", "*", "*", { operations: ["DELETE"], objectLabelExists: "resourcetemplate.karmada.io/deletion-protected" }),
  // Quota enforcement updates FederatedResourceQuota status, except on dry runs.
  hook("resourcebinding.karmada.io", "/validate-resourcebinding", "work.karmada.io", "resourcebindings", "Namespaced", { sideEffects: "NoneOnDryRun" }),
  hook("clustertaintpolicy.karmada.io", "/validate-clustertaintpolicy", "policy.karmada.io", "clustertaintpolicies", "Cluster"),
];
