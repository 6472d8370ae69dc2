import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { applyObjects, KubeObject } from "../../lib/kube/apply";
import { createSecret } from "../../lib/kube/secrets";
import { MemberCredentialObjects, secretDataValue } from "../../lib/members/credentials";
import type { MemberObjectGroups } from "../../lib/members/objects";
import { MemberContext, karmadaOptions, memberOptions } from "./context";

/** A ServiceAccount token read back from the member. */
interface MemberToken {
  /** The bearer token; secret. */
  readonly token: pulumi.Output<string>;
  /** PEM of the member's cluster CA (`ca.crt` of the token Secret); read only when asked for. */
  caCrt(): pulumi.Output<string>;
}

/** Member-side credential resources and the tokens read back from them. */
export interface MemberCredentials {
  /** Every member-side resource (namespace, accounts, roles, token Secrets). */
  readonly resources: pulumi.Resource[];
  readonly credential: MemberToken;
  readonly impersonator: MemberToken;
}

/**
 * Creates a token Secret natively (applyObjects refuses Secrets) and waits until the member's token
 * controller has filled it. `credentialGeneration` is its replacement trigger, and its ServiceAccount's:
 * a bump deletes both (which revokes the old token) and creates them anew, so the token controller
 * issues a new token for the new account.
 */
function tokenSecret(ctx: MemberContext, obj: KubeObject, dependsOn: pulumi.Resource[]): k8s.core.v1.Secret {
  return new k8s.core.v1.Secret(
    `${ctx.name}-member-token-${obj.metadata.name}`,
    { metadata: obj.metadata as k8s.types.input.meta.v1.ObjectMeta, type: obj.type as string },
    {
      ...memberOptions(ctx, dependsOn),
      replacementTrigger: rotationTrigger(ctx),
      // same name: the old Secret must be gone before the new one is created
      deleteBeforeReplace: true,
    },
  );
}

/** What replaces the member-side accounts and token Secrets: a bump of `credentialGeneration`. */
const rotationTrigger = (ctx: MemberContext) => `generation=${ctx.settings.credentialGeneration}`;

/** Reads `token` and `ca.crt` out of a token Secret's (secret) `data` output. */
function readToken(secret: k8s.core.v1.Secret, obj: KubeObject, clusterName: string): MemberToken {
  const data = secret.data as pulumi.Output<Record<string, string> | undefined>;
  const label = `${obj.metadata.namespace}/${obj.metadata.name} in member ${clusterName}`;
  return {
    token: pulumi.secret(data.apply((d) => secretDataValue(d, "token", label))),
    caCrt: () => data.apply((d) => secretDataValue(d, "ca.crt", label)),
  };
}

/**
 * What `karmadactl join` creates in the member (namespace karmada-cluster, ServiceAccounts
 * `karmada-<cluster>` and `karmada-impersonator`, their role and binding, their token Secrets), in
 * dependency order, through the member's provider only.
 */
export function createMemberCredentials(
  ctx: MemberContext,
  objects: MemberCredentialObjects,
): MemberCredentials {
  const prefix = `${ctx.name}-member`;
  const namespace = applyObjects(prefix, objects.namespace, memberOptions(ctx));
  // Replaced with the token Secrets: a legacy token is a deterministic JWT of the account's name and UID
  // and the Secret's name, so a Secret re-created under its old name for the old account gets the very
  // same token back (nothing rotated, the "revoked" token valid again). A new account has a new UID.
  const accounts = applyObjects(prefix, objects.accounts, {
    ...memberOptions(ctx, namespace),
    replacementTrigger: rotationTrigger(ctx),
    deleteBeforeReplace: true,
  });
  const roles = applyObjects(prefix, objects.roles, memberOptions(ctx, namespace));
  const access = [...accounts, ...roles];
  const { credential, impersonator } = objects.tokens;
  const credentialSecret = tokenSecret(ctx, credential, access);
  const impersonatorSecret = tokenSecret(ctx, impersonator, access);
  return {
    resources: [...namespace, ...access, credentialSecret, impersonatorSecret],
    credential: readToken(credentialSecret, credential, ctx.settings.clusterName),
    impersonator: readToken(impersonatorSecret, impersonator, ctx.settings.clusterName),
  };
}

/**
 * Karmada-side credential Secrets in karmada-cluster, as `karmadactl join` writes them: `<cluster>`
 * (keys `token`, `caBundle`) and `<cluster>-impersonator` (key `token`). Values are secrets end to end.
 * Written by us in both modes: in pull mode the agent would create them, but it keeps an existing
 * Secret as it is (Karmada's `util.CreateSecret` returns it on AlreadyExists), so after a rotation it
 * would go on handing Karmada the revoked tokens. A bump of `credentialGeneration` replaces the member's
 * token Secrets, and these copies are updated with the new tokens in the same `up`.
 * @param caBundle override of the member CA Karmada trusts. @default the token Secret's `ca.crt`
 */
export function createKarmadaCredentialSecrets(
  ctx: MemberContext,
  copies: NonNullable<MemberObjectGroups["tokenCopies"]>,
  credentials: MemberCredentials,
  caBundle: pulumi.Input<string> | undefined,
): pulumi.Resource[] {
  const opts = karmadaOptions(ctx);
  const { credential, impersonator } = copies;
  return [
    createSecret(
      `${ctx.name}-karmada-secret-${credential.name}`,
      {
        ...credential,
        data: { token: credentials.credential.token, caBundle: caBundle ?? credentials.credential.caCrt() },
      },
      opts,
    ),
    createSecret(
      `${ctx.name}-karmada-secret-${impersonator.name}`,
      { ...impersonator, data: { token: credentials.impersonator.token } },
      opts,
    ),
  ];
}
