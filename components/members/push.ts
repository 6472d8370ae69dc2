import * as pulumi from "@pulumi/pulumi";
import { memberObjects } from "../../lib/members/objects";
import { createClusterObject } from "./cluster";
import { MemberContext } from "./context";
import { createKarmadaCredentialSecrets, createMemberCredentials } from "./credentials";

/** What a push registration created. */
export interface PushResources {
  readonly memberSide: pulumi.Resource[];
  readonly karmadaSecrets: pulumi.Resource[];
  readonly cluster: pulumi.CustomResource;
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
  const objects = memberObjects(ctx.settings);
  const credentials = createMemberCredentials(ctx, objects.credentials!);
  const karmadaSecrets = createKarmadaCredentialSecrets(ctx, objects.tokenCopies!, credentials, caBundle);
  const cluster = createClusterObject(ctx, objects.cluster, {
    provider: ctx.controlPlane.karmadaProvider,
    dependsOn: [...credentials.resources, ...karmadaSecrets],
  });
  return { memberSide: credentials.resources, karmadaSecrets, cluster };
}
