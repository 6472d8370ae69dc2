/**
 * The member-side credentials Karmada uses, push and pull alike: the accounts and token Secrets in the
 * member (`memberCredentialObjects`, a pull member's reported ones included), and reading a token back.
 */
import type { KubeObject } from "../kube/object";
import { MemberSettings } from "./config";
import { KARMADA_SYSTEM_LABEL } from "./names";
import { clusterRoleWithBinding, memberAccessRules } from "./rbac";

/** Annotation tying a token Secret to its ServiceAccount (the token controller fills such Secrets). */
export const SERVICE_ACCOUNT_NAME_ANNOTATION = "kubernetes.io/service-account.name";
/** Type of a Secret the token controller fills with a long-lived ServiceAccount token. */
export const SERVICE_ACCOUNT_TOKEN_TYPE = "kubernetes.io/service-account-token";
/** @pulumi/kubernetes waits until this JSONPath exists: the token controller has written the token. */
export const WAIT_FOR_TOKEN = { "pulumi.com/waitFor": "jsonpath={.data.token}" } as const;

/** A ServiceAccount token Secret: no data of ours, the member's token controller writes `token` and `ca.crt`. */
export interface TokenSecretSpec {
  readonly name: string;
  readonly namespace: string;
  readonly serviceAccount: string;
}

/** The Secret object of a {@link TokenSecretSpec} (created natively, never through applyObjects). */
export function tokenSecretObject(spec: TokenSecretSpec): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: spec.name,
      namespace: spec.namespace,
      labels: { ...KARMADA_SYSTEM_LABEL },
      annotations: { [SERVICE_ACCOUNT_NAME_ANNOTATION]: spec.serviceAccount, ...WAIT_FOR_TOKEN },
    },
    type: SERVICE_ACCOUNT_TOKEN_TYPE,
  };
}

/** Member-side objects of the credentials Karmada uses to reach a member (what `karmadactl join` creates). */
export interface MemberCredentialObjects {
  /** The credentials namespace in the member (`karmada-cluster` by default). */
  readonly namespace: KubeObject[];
  /** ServiceAccounts `karmada-<cluster>` and `karmada-impersonator`, ClusterRole and -Binding. */
  readonly access: KubeObject[];
  /** Token Secrets named after each ServiceAccount: `credential` (controller-manager), `impersonator`. */
  readonly tokens: { readonly credential: TokenSecretSpec; readonly impersonator: TokenSecretSpec };
}

/**
 * The member-side credential objects, named as karmadactl names them and labelled
 * `karmada.io/system=true`: the credentials namespace (`karmada-cluster` by default); ServiceAccount `karmada-<cluster>` bound by
 * ClusterRole/-Binding `karmada-controller-manager:karmada-<cluster>` to the rules of `permissions`;
 * ServiceAccount `karmada-impersonator` (no role of its own: Karmada grants impersonation itself);
 * one token Secret per ServiceAccount, named after it.
 */
export function memberCredentialObjects(
  settings: Pick<
    MemberSettings,
    "clusterName" | "names" | "credentialsNamespace" | "permissions" | "extraRules"
  >,
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
    access: [
      serviceAccount(names.serviceAccount),
      serviceAccount(names.impersonatorServiceAccount),
      ...clusterRoleWithBinding(
        names.clusterRole,
        memberAccessRules(settings.permissions, settings.extraRules),
        { kind: "ServiceAccount", name: names.serviceAccount, namespace },
        labels,
      ),
    ],
    tokens: {
      credential: {
        name: names.serviceAccount,
        namespace,
        serviceAccount: names.serviceAccount,
      },
      impersonator: {
        name: names.impersonatorServiceAccount,
        namespace,
        serviceAccount: names.impersonatorServiceAccount,
      },
    },
  };
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
