import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import * as tls from "@pulumi/tls";
import { createHash } from "node:crypto";
import { kubeconfigOutput } from "../../lib/kubeconfig";
import { createSecret } from "../../lib/kube/secrets";
import {
  agentCertificateSpec,
  agentCsrObject,
  agentKubeconfigNames,
  bootstrapTokenSecretData,
  TOKEN_ID_LENGTH,
  TOKEN_SECRET_LENGTH,
  tokenExpiration,
  tokenKubeconfig,
} from "../../lib/members/bootstrap";
import { BOOTSTRAP_TOKEN } from "../../lib/members/names";
import { issuePki, RSA_BITS } from "../../lib/pki/issue";
import { rotationTrigger } from "../../lib/pki/rotation";
import { ConfigError } from "../../lib/validation/errors";
import { MemberContext, karmadaOptions } from "./context";

/** The agent's credential for karmada-apiserver. */
export interface AgentIdentity {
  /** Kubeconfig with the agent's client certificate and key; secret. */
  readonly kubeconfig: pulumi.Output<string>;
  /** Changes whenever the certificate is reissued (restarts the agent pods). */
  readonly rotationTrigger: string;
  /** Resources that must exist before the agent starts. */
  readonly resources: pulumi.Resource[];
}

const hash = (text: string, length: number): string =>
  createHash("sha256").update(text).digest("hex").slice(0, length);

/** karmada-apiserver URL the agent dials: the override, or the control plane's endpoint. */
function agentServer(ctx: MemberContext): string {
  return ctx.settings.pull!.karmadaApiEndpoint ?? ctx.controlPlane.apiEndpoint;
}

function agentKubeconfig(ctx: MemberContext, certPem: pulumi.Input<string>, keyPem: pulumi.Input<string>) {
  return kubeconfigOutput({
    server: agentServer(ctx),
    caPem: ctx.controlPlane.caCertPem,
    certPem,
    keyPem,
    ...agentKubeconfigNames(ctx.settings.clusterName),
  });
}

/**
 * Direct identity: `system:karmada:agent:<cluster>` issued here from the Karmada CA key (no CSR round
 * trip), renewed on a normal `pulumi up` inside its renew window or when `credentialGeneration` bumps.
 */
export function directIdentity(ctx: MemberContext): AgentIdentity {
  const caKeyPem = ctx.controlPlane.caKeyPem;
  if (!caKeyPem) {
    throw new ConfigError(
      "pull.identity",
      '"direct" needs the Karmada CA key, and this control plane was given its CA without one',
      '"bootstrapToken"',
    );
  }
  const spec = agentCertificateSpec(ctx.settings.names, ctx.settings.pull!.certValidityHours);
  const pki = issuePki({
    name: ctx.name,
    parent: ctx.parent,
    certificates: [spec],
    cas: { "karmada-ca": { certPem: ctx.controlPlane.caCertPem, keyPem: caKeyPem } },
    rotation: { generation: ctx.settings.credentialGeneration },
  });
  const leaf = pki.leaves[spec.id];
  return {
    kubeconfig: agentKubeconfig(ctx, leaf.certPem, leaf.keyPem),
    rotationTrigger: leaf.rotationTrigger,
    resources: [],
  };
}

/**
 * Bootstrap-token identity, the `karmadactl token create` + `karmadactl register` flow: a bootstrap
 * token (id derived from cluster name and generation, secret random) in Karmada's kube-system; with it,
 * a CertificateSigningRequest for the agent identity, which Karmada's agentcsrapproving controller
 * approves and kube-controller-manager signs. The CSR is kept on delete: bootstrap identities may not
 * delete CSRs, and Karmada's csrcleaner removes signed ones after an hour.
 */
export function bootstrapTokenIdentity(ctx: MemberContext): AgentIdentity {
  const { clusterName, credentialGeneration: generation, pull } = ctx.settings;
  const tokenId = hash(`${clusterName}/${generation}`, TOKEN_ID_LENGTH);
  const tokenSecret = new random.RandomString(
    `${ctx.name}-bootstrap-token-g${generation}`,
    { length: TOKEN_SECRET_LENGTH, special: false, upper: false, lower: true, numeric: true },
    { parent: ctx.parent, additionalSecretOutputs: ["result"] },
  );
  const secretPart = pulumi.secret(tokenSecret.result);
  const expiration = tokenExpiration(Date.now(), pull!.bootstrapTokenTtlHours);
  const data = bootstrapTokenSecretData(
    { id: tokenId, secret: "" },
    { expiration, description: `karmada-agent bootstrap for cluster ${clusterName} (pulumi-karmada)` },
  );
  const tokenObject = createSecret(
    `${ctx.name}-karmada-bootstrap-token-g${generation}`,
    {
      name: BOOTSTRAP_TOKEN.secretName(tokenId),
      namespace: BOOTSTRAP_TOKEN.namespace,
      type: BOOTSTRAP_TOKEN.secretType,
      data: { ...data, "token-secret": secretPart },
    },
    // the expiry is fixed when the token is created; later runs must not extend it
    { ...karmadaOptions(ctx), ignoreChanges: ["stringData.expiration"] },
  );
  const bootstrapProvider = new k8s.Provider(
    `${ctx.name}-karmada-bootstrap`,
    {
      kubeconfig: pulumi.secret(
        pulumi
          .all([ctx.controlPlane.caCertPem, secretPart])
          .apply(([ca, secret]) => tokenKubeconfig(ctx.controlPlane.apiEndpoint, ca, `${tokenId}.${secret}`)),
      ),
      clusterIdentifier: `karmada-${ctx.controlPlane.settings.name}`,
      deleteUnreachable: true,
    },
    { parent: ctx.parent, dependsOn: [tokenObject] },
  );
  const trigger = rotationTrigger({ validityHours: pull!.certValidityHours, generation, nowMs: Date.now() });
  const rotating = { parent: ctx.parent, replacementTrigger: trigger };
  const key = new tls.PrivateKey(`${ctx.name}-agent-key`, { algorithm: "RSA", rsaBits: RSA_BITS }, rotating);
  const spec = agentCertificateSpec(ctx.settings.names, pull!.certValidityHours);
  const request = new tls.CertRequest(
    `${ctx.name}-agent-csr`,
    {
      privateKeyPem: key.privateKeyPem,
      subject: { commonName: spec.commonName, organization: spec.organizations[0] },
    },
    { parent: ctx.parent },
  );
  // a new name per key: CSRs are immutable and the previous one is kept
  const csrObject = agentCsrObject(`${clusterName}-${hash(trigger, 5)}`, "", pull!.certValidityHours * 3600);
  const csr = new k8s.certificates.v1.CertificateSigningRequest(
    `${ctx.name}-karmada-csr`,
    {
      metadata: csrObject.metadata as k8s.types.input.meta.v1.ObjectMeta,
      spec: {
        ...(csrObject.spec as k8s.types.input.certificates.v1.CertificateSigningRequestSpec),
        request: request.certRequestPem.apply((pem) => Buffer.from(pem).toString("base64")),
      },
    },
    // after the controllers too: karmada-controller-manager approves it, kube-controller-manager signs it
    {
      parent: ctx.parent,
      provider: bootstrapProvider,
      dependsOn: ctx.controlPlane.controllers,
      retainOnDelete: true,
    },
  );
  const certPem = csr.status.apply((status) => {
    if (!status?.certificate)
      throw new Error(`CSR for cluster ${clusterName} was not signed: is agentcsrapproving enabled?`);
    return Buffer.from(status.certificate, "base64").toString("utf8");
  });
  return {
    kubeconfig: agentKubeconfig(ctx, certPem, pulumi.secret(key.privateKeyPem)),
    rotationTrigger: trigger,
    resources: [tokenObject, csr],
  };
}
