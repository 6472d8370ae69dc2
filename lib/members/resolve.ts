/** A member registration's configuration → its settings: every default applied here. */
import { MemberRegistrationConfig } from "./config";
import { MEMBER_DEFAULTS } from "./defaults";
import { AGENT_NAMESPACE, CLUSTER_NAMESPACE, memberObjectNames } from "./names";
import { MemberSettings } from "./settings";

/** Applies defaults; assumes `validateMemberConfig` passed. */
export function resolveMemberSettings(config: MemberRegistrationConfig): MemberSettings {
  const pull = config.pull ?? {};
  return {
    clusterName: config.clusterName,
    names: memberObjectNames(config.clusterName),
    mode: config.mode,
    apiEndpoint: config.apiEndpoint,
    provider: config.provider,
    region: config.region,
    zones: config.zones ?? [],
    taints: (config.taints ?? []).map((t) => ({ key: t.key, value: t.value ?? "", effect: t.effect })),
    proxyURL: config.proxyURL,
    insecureSkipTLSVerification: config.insecureSkipTLSVerification ?? false,
    credentialsNamespace: config.credentialsNamespace ?? CLUSTER_NAMESPACE,
    permissions: config.permissions ?? MEMBER_DEFAULTS.permissions,
    extraRules: config.extraRules ?? [],
    pull:
      config.mode === "Pull"
        ? {
            replicas: pull.replicas ?? MEMBER_DEFAULTS.agentReplicas,
            identity: pull.identity ?? MEMBER_DEFAULTS.identity,
            extraArgs: pull.extraArgs ?? {},
            karmadaApiEndpoint: pull.karmadaApiEndpoint,
            certValidityHours: pull.certValidityHours ?? MEMBER_DEFAULTS.certValidityHours,
            reportSecrets: pull.reportSecrets ?? true,
            bootstrapTokenTtlHours: pull.bootstrapTokenTtlHours ?? MEMBER_DEFAULTS.bootstrapTokenTtlHours,
            namespace: pull.namespace ?? AGENT_NAMESPACE,
            createNamespace: pull.createNamespace ?? true,
          }
        : undefined,
    credentialGeneration: config.credentialGeneration ?? 0,
    forceRemove: config.forceRemove ?? false,
  };
}
