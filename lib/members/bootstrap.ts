import { createHash } from "node:crypto";
import { stringify } from "yaml";
import type { KubeObject, SecretPlace } from "../kube/object";
import { CertSpec, LEAF_BASE_USES } from "../pki/certificates";
import { rotationTrigger } from "../pki/rotation";
import { ConfigError } from "../validation/errors";
import type { MemberSettings } from "./settings";
import { AGENT_CSR_SIGNER, AGENT_GROUP, BOOTSTRAP_TOKEN, MemberObjectNames } from "./names";

/** Form of a bootstrap token `<id>.<secret>` (Kubernetes' BootstrapTokenPattern). */
export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const TOKEN_ID_LENGTH = 6;
export const TOKEN_SECRET_LENGTH = 16;

/** Name of the kubeconfig's cluster entry, as `karmadactl register` writes it. */
const KARMADA_CLUSTER_ENTRY = "karmada-apiserver";

/** Identity names of a member's agent kubeconfig (karmadactl: user = cluster name). */
function agentKubeconfigNames(clusterName: string): {
  clusterName: string;
  userName: string;
  contextName: string;
} {
  return {
    clusterName: KARMADA_CLUSTER_ENTRY,
    userName: clusterName,
    contextName: `${clusterName}@${KARMADA_CLUSTER_ENTRY}`,
  };
}

/**
 * The agent's client certificate: CN `system:karmada:agent:<cluster>`, O `system:karmada:agents`,
 * client auth only — the subject Karmada's `agentcsrapproving` controller and the agent RBAC expect.
 */
function agentCertificateSpec(names: MemberObjectNames, validityHours: number): CertSpec {
  return {
    id: "karmada-agent-client",
    commonName: names.agentUser,
    organizations: [AGENT_GROUP],
    signer: "karmada-ca",
    allowedUses: [...LEAF_BASE_USES, "client_auth"],
    dnsNames: [],
    ipAddresses: [],
    validityHours,
    files: { cert: "karmada-agent-client.crt", key: "karmada-agent-client.key" },
  };
}

/** Splits and checks a bootstrap token; the message never shows the secret half. */
export function parseBootstrapToken(token: string): { id: string; secret: string } {
  const match = BOOTSTRAP_TOKEN_PATTERN.exec(token);
  if (!match) {
    throw new ConfigError(
      "bootstrapToken",
      "is not of the form <6 chars>.<16 chars> of [a-z0-9]",
      "[a-z0-9]{6}.[a-z0-9]{16}",
    );
  }
  return { id: match[1], secret: match[2] };
}

/** RFC 3339 expiry `ttlHours` after `nowMs`, or undefined for a token that never expires (ttl 0). */
export function tokenExpiration(nowMs: number, ttlHours: number): string | undefined {
  if (ttlHours === 0) return undefined;
  return new Date(nowMs + ttlHours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Data of a bootstrap-token Secret as `karmadactl token create` writes it: id, secret, both usages,
 * the karmada bootstrap group, optional expiration and description. Without `secret` the key is left
 * out, for the caller to add (Pulumi's random string).
 */
export function bootstrapTokenSecretData(
  token: { id: string; secret?: string },
  options: { expiration?: string; description?: string } = {},
): Record<string, string> {
  return {
    "token-id": token.id,
    ...(token.secret !== undefined ? { "token-secret": token.secret } : {}),
    "usage-bootstrap-authentication": "true",
    "usage-bootstrap-signing": "true",
    "auth-extra-groups": BOOTSTRAP_TOKEN.group,
    ...(options.expiration ? { expiration: options.expiration } : {}),
    ...(options.description ? { description: options.description } : {}),
  };
}

/** A kubeconfig that authenticates with a bearer token (the bootstrap token); a secret. */
export function tokenKubeconfig(server: string, caPem: string, token: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: KARMADA_CLUSTER_ENTRY,
        cluster: { server, "certificate-authority-data": Buffer.from(caPem).toString("base64") },
      },
    ],
    users: [{ name: "tls-bootstrap-token-user", user: { token } }],
    contexts: [
      {
        name: "tls-bootstrap-token-user@karmada-apiserver",
        context: { cluster: KARMADA_CLUSTER_ENTRY, user: "tls-bootstrap-token-user" },
      },
    ],
    "current-context": "tls-bootstrap-token-user@karmada-apiserver",
    preferences: {},
  });
}

/** Annotation that makes @pulumi/kubernetes wait until the CSR is signed. */
const WAIT_FOR_CERTIFICATE = { "pulumi.com/waitFor": "jsonpath={.status.certificate}" } as const;

/**
 * The CertificateSigningRequest `karmadactl register` submits for the agent identity: signer
 * `kubernetes.io/kube-apiserver-client`, usages digital signature, key encipherment, client auth.
 * `request` is the base64 of the PEM CSR.
 */
function agentCsrObject(name: string, requestBase64: string, expirationSeconds: number): KubeObject {
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name, annotations: { ...WAIT_FOR_CERTIFICATE } },
    spec: {
      request: requestBase64,
      signerName: AGENT_CSR_SIGNER,
      expirationSeconds,
      usages: ["digital signature", "key encipherment", "client auth"],
    },
  };
}

/** Hex prefix of a SHA-256: stable short ids derived from names. */
const sha256Prefix = (text: string, length: number): string =>
  createHash("sha256").update(text).digest("hex").slice(0, length);

/** The bootstrap-token identity's objects inside Karmada, but for the token's random secret half. */
export interface BootstrapTokenObjects {
  /** Public half of the token, derived from the cluster name and `credentialGeneration`. */
  readonly tokenId: string;
  /** Secret `bootstrap-token-<id>` in Karmada's kube-system. */
  readonly secret: SecretPlace;
  /** Its data but `token-secret` (Pulumi's random string). */
  readonly data: Record<string, string>;
  /** Replacement trigger of the agent's key and CSR: its validity window and `credentialGeneration`. */
  readonly rotationTrigger: string;
  /** The CSR of the agent's certificate, `request` left empty; named per key (CSRs are immutable). */
  readonly csr: KubeObject;
}

/** What the agent's identity is made of, before anything is issued or requested. */
export interface AgentIdentityObjects {
  /** The agent's client certificate (direct: issued from the Karmada CA; bootstrapToken: by CSR). */
  readonly certificate: CertSpec;
  /** Cluster, user and context names of the agent's kubeconfig. */
  readonly kubeconfigNames: ReturnType<typeof agentKubeconfigNames>;
  /** Present for `identity: "bootstrapToken"`. */
  readonly bootstrapToken?: BootstrapTokenObjects;
}

/**
 * A pull member's agent identity, as `karmadactl token create` + `karmadactl register` make it: its
 * certificate, its kubeconfig's names and — for the bootstrap-token flow — the token Secret (expiring
 * `bootstrapTokenTtlHours` after `nowMs`) and the CSR.
 */
export function agentIdentityObjects(
  settings: Pick<MemberSettings, "clusterName" | "names" | "credentialGeneration" | "pull">,
  nowMs: number,
): AgentIdentityObjects {
  const { clusterName, credentialGeneration: generation } = settings;
  const pull = settings.pull!;
  const certificate = agentCertificateSpec(settings.names, pull.certValidityHours);
  const kubeconfigNames = agentKubeconfigNames(clusterName);
  if (pull.identity !== "bootstrapToken") return { certificate, kubeconfigNames };
  const tokenId = sha256Prefix(`${clusterName}/${generation}`, TOKEN_ID_LENGTH);
  const data = bootstrapTokenSecretData(
    { id: tokenId },
    {
      expiration: tokenExpiration(nowMs, pull.bootstrapTokenTtlHours),
      description: `karmada-agent bootstrap for cluster ${clusterName} (pulumi-karmada)`,
    },
  );
  const trigger = rotationTrigger({ validityHours: pull.certValidityHours, generation, nowMs });
  return {
    certificate,
    kubeconfigNames,
    bootstrapToken: {
      tokenId,
      secret: {
        name: BOOTSTRAP_TOKEN.secretName(tokenId),
        namespace: BOOTSTRAP_TOKEN.namespace,
        type: BOOTSTRAP_TOKEN.secretType,
      },
      data,
      rotationTrigger: trigger,
      csr: agentCsrObject(`${clusterName}-${sha256Prefix(trigger, 5)}`, "", pull.certValidityHours * 3600),
    },
  };
}
