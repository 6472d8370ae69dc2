/**
 * The member-side credentials Karmada uses, push and pull alike: the accounts and token Secrets in the
 * member (`memberCredentialObjects`, a pull member's reported ones included), Karmada's copies of their
 * tokens (`karmadaTokenCopies`), and reading a token back.
 */
import type { KubeObject, SecretPlace } from "../kube/object";
import { MemberSettings } from "./settings";
import { CLUSTER_NAMESPACE, KARMADA_SYSTEM_LABEL, MemberObjectNames } from "./names";
import { clusterRoleWithBinding, memberAccessRules } from "./rbac";

/** Annotation tying a token Secret to its ServiceAccount (the token controller fills such Secrets). */
const SERVICE_ACCOUNT_NAME_ANNOTATION = "kubernetes.io/service-account.name";
/** Type of a Secret the token controller fills with a long-lived ServiceAccount token. */
const SERVICE_ACCOUNT_TOKEN_TYPE = "kubernetes.io/service-account-token";
/** @pulumi/kubernetes waits until this JSONPath exists: the token controller has written the token. */
const WAIT_FOR_TOKEN = { "pulumi.com/waitFor": "jsonpath={.data.token}" } as const;

/**
 * A ServiceAccount token Secret named after its account: no data of ours, the member's token controller
 * writes `token` and `ca.crt` (created natively, never through applyObjects).
 */
function tokenSecretObject(account: string, namespace: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: account,
      namespace,
      labels: { ...KARMADA_SYSTEM_LABEL },
      annotations: { [SERVICE_ACCOUNT_NAME_ANNOTATION]: account, ...WAIT_FOR_TOKEN },
    },
    type: SERVICE_ACCOUNT_TOKEN_TYPE,
  };
}

/** Member-side objects of the credentials Karmada uses to reach a member (what `karmadactl join` creates). */
export interface MemberCredentialObjects {
  /** The credentials namespace in the member (`karmada-cluster` by default). */
  readonly namespace: KubeObject[];
  /** ServiceAccounts `karmada-<cluster>` and `karmada-impersonator`: replaced, with their tokens, on a rotation. */
  readonly accounts: KubeObject[];
  /** ClusterRole and -Binding of `karmada-<cluster>`. */
  readonly roles: KubeObject[];
  /** Token Secrets named after each ServiceAccount: `credential` (controller-manager), `impersonator`. */
  readonly tokens: { readonly credential: KubeObject; readonly impersonator: KubeObject };
}

/**
 * The member-side credential objects, named as karmadactl names them and labelled
 * `karmada.io/system=true`: the credentials namespace (`karmada-cluster` by default); ServiceAccount `karmada-<cluster>` bound by
 * ClusterRole/-Binding `karmada-controller-manager:karmada-<cluster>` to the rules of `permissions`;
 * ServiceAccount `karmada-impersonator` (no role of its own: Karmada grants impersonation itself);
 * one token Secret per ServiceAccount, named after it.
 */
export function memberCredentialObjects(
  settings: Pick<MemberSettings, "names" | "credentialsNamespace" | "permissions" | "extraRules">,
): MemberCredentialObjects {
  const names = settings.names;
  const namespace = settings.credentialsNamespace;
  const labels = { ...KARMADA_SYSTEM_LABEL };
  const serviceAccount = (name: string): KubeObject => ({
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace, labels },
  });
  return {
    namespace: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace, labels } }],
    accounts: [serviceAccount(names.serviceAccount), serviceAccount(names.impersonatorServiceAccount)],
    roles: clusterRoleWithBinding(
      names.clusterRole,
      memberAccessRules(settings.permissions, settings.extraRules),
      { kind: "ServiceAccount", name: names.serviceAccount, namespace },
      labels,
    ),
    tokens: {
      credential: tokenSecretObject(names.serviceAccount, namespace),
      impersonator: tokenSecretObject(names.impersonatorServiceAccount, namespace),
    },
  };
}

/**
 * Karmada's copies of the member's tokens in karmada-cluster, as `karmadactl join` writes them:
 * `<cluster>` (keys `token`, `caBundle`) and `<cluster>-impersonator` (key `token`).
 */
export function karmadaTokenCopies(names: MemberObjectNames): {
  readonly credential: SecretPlace;
  readonly impersonator: SecretPlace;
} {
  const place = (name: string): SecretPlace => ({
    name,
    namespace: CLUSTER_NAMESPACE,
    labels: { ...KARMADA_SYSTEM_LABEL },
  });
  return { credential: place(names.credentialSecret), impersonator: place(names.impersonatorSecret) };
}

/** Decodes one key of a Secret's `data` (base64); a missing key is an error naming the Secret. */
export function secretDataValue(
  data: Readonly<Record<string, string>> | undefined,
  key: string,
  secret: string,
): string {
  const value = data?.[key];
  if (typeof value !== "string" || value === "") {
    throw new Error(`Secret ${secret} has no "${key}" yet: is the member's token controller running?`);
  }
  return Buffer.from(value, "base64").toString("utf8");
}
