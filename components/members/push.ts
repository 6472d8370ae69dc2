import * as pulumi from "@pulumi/pulumi";
import { createSecret } from "../../lib/kube/secrets";
import { CLUSTER_NAMESPACE, KARMADA_SYSTEM_LABEL, memberObjectNames } from "../../lib/members/names";
import { createClusterObject } from "./cluster";
import { MemberContext, karmadaOptions } from "./context";
import { createMemberCredentials, MemberCredentials } from "./credentials";

/** What a push registration created. */
export interface PushResources {
  readonly memberSide: pulumi.Resource[];
  readonly karmadaSecrets: pulumi.Resource[];
  readonly cluster: pulumi.CustomResource;
}

/**
 * Karmada-side credential Secrets in karmada-cluster, as `karmadactl join` writes them: `<cluster>`
 * (keys `token`, `caBundle`) and `<cluster>-impersonator` (key `token`). Values are secrets end to end.
 * @param caBundle override of the member CA Karmada trusts. @default the token Secret's `ca.crt`
 */
export function createKarmadaCredentialSecrets(
  ctx: MemberContext,
  credentials: MemberCredentials,
  caBundle: pulumi.Input<string> | undefined,
): pulumi.Resource[] {
  const names = memberObjectNames(ctx.settings.clusterName);
  const opts = karmadaOptions(ctx);
  const labels = { ...KARMADA_SYSTEM_LABEL };
  return [
    createSecret(
      `${ctx.name}-karmada-secret-${names.credentialSecret}`,
      {
        name: names.credentialSecret,
        namespace: CLUSTER_NAMESPACE,
        labels,
        data: { token: credentials.credential.token, caBundle: caBundle ?? credentials.credential.caCrt() },
      },
      opts,
    ),
    createSecret(
      `${ctx.name}-karmada-secret-${names.impersonatorSecret}`,
      {
        name: names.impersonatorSecret,
        namespace: CLUSTER_NAMESPACE,
        labels,
        data: { token: credentials.impersonator.token },
      },
      opts,
    ),
  ];
}

/**
 * Push mode, what `karmadactl join` does: member-side ServiceAccounts, role and token Secrets; the
 * tokens copied into Karmada-side Secrets; then the Cluster object, which depends on all of them (so it
 * is deleted first).
 */
export function registerPushMember(
  ctx: MemberContext,
  caBundle: pulumi.Input<string> | undefined,
): PushResources {
  const credentials = createMemberCredentials(ctx);
  const karmadaSecrets = createKarmadaCredentialSecrets(ctx, credentials, caBundle);
  const cluster = createClusterObject(ctx, {
    provider: ctx.controlPlane.karmadaProvider,
    dependsOn: [...credentials.resources, ...karmadaSecrets],
  });
  return { memberSide: credentials.resources, karmadaSecrets, cluster };
}
