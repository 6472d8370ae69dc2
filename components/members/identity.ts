import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import * as tls from "@pulumi/tls";
import { kubeconfigOutput } from "../../lib/kubeconfig";
import { createSecret } from "../../lib/kube/secrets";
import {
  AgentIdentityObjects,
  BootstrapTokenObjects,
  TOKEN_SECRET_LENGTH,
  tokenKubeconfig,
} from "../../lib/members/bootstrap";
import { issuePki, RSA_BITS } from "../../lib/pki/issue";
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

/** karmada-apiserver URL the agent dials: the override, or the control plane's endpoint. */
function agentServer(ctx: MemberContext): string {
  return ctx.settings.pull!.karmadaApiEndpoint ?? ctx.controlPlane.apiEndpoint;
}

function agentKubeconfig(
  ctx: MemberContext,
  objects: AgentIdentityObjects,
  certPem: pulumi.Input<string>,
  keyPem: pulumi.Input<string>,
) {
  return kubeconfigOutput({
    server: agentServer(ctx),
    caPem: ctx.controlPlane.caCertPem,
    certPem,
    keyPem,
    ...objects.kubeconfigNames,
  });
}

/** The agent's identity of the kind its settings name (`pull.identity`). */
export function agentIdentity(ctx: MemberContext, objects: AgentIdentityObjects): AgentIdentity {
  return objects.bootstrapToken
    ? bootstrapTokenIdentity(ctx, objects, objects.bootstrapToken)
    : directIdentity(ctx, objects);
}

/**
 * Direct identity: `system:karmada:agent:<cluster>` issued here from the Karmada CA key (no CSR round
 * trip), renewed on a normal `pulumi up` inside its renew window or when `credentialGeneration` bumps.
 */
function directIdentity(ctx: MemberContext, objects: AgentIdentityObjects): AgentIdentity {
  const caKeyPem = ctx.controlPlane.caKeyPem;
  if (!caKeyPem) {
    throw new ConfigError(
      "pull.identity",
      '"direct" needs the Karmada CA key, and this control plane was given its CA without one',
      '"bootstrapToken"',
    );
  }
  const spec = objects.certificate;
  const pki = issuePki({
    name: ctx.name,
    parent: ctx.parent,
    certificates: [spec],
    cas: { "karmada-ca": { certPem: ctx.controlPlane.caCertPem, keyPem: caKeyPem } },
    rotation: { generation: ctx.settings.credentialGeneration },
  });
  const leaf = pki.leaves[spec.id];
  return {
    kubeconfig: agentKubeconfig(ctx, objects, leaf.certPem, leaf.keyPem),
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
function bootstrapTokenIdentity(
  ctx: MemberContext,
  objects: AgentIdentityObjects,
  token: BootstrapTokenObjects,
): AgentIdentity {
  const generation = ctx.settings.credentialGeneration;
  const tokenSecret = new random.RandomString(
    `${ctx.name}-bootstrap-token-g${generation}`,
    { length: TOKEN_SECRET_LENGTH, special: false, upper: false, lower: true, numeric: true },
    { parent: ctx.parent, additionalSecretOutputs: ["result"] },
  );
  const secretPart = pulumi.secret(tokenSecret.result);
  const tokenObject = createSecret(
    `${ctx.name}-karmada-bootstrap-token-g${generation}`,
    { ...token.secret, data: { ...token.data, "token-secret": secretPart } },
    // the expiry is fixed when the token is created; later runs must not extend it
    { ...karmadaOptions(ctx), ignoreChanges: ["stringData.expiration"] },
  );
  const bootstrapProvider = new k8s.Provider(
    `${ctx.name}-karmada-bootstrap`,
    {
      kubeconfig: pulumi.secret(
        pulumi
          .all([ctx.controlPlane.caCertPem, secretPart])
          .apply(([ca, secret]) =>
            tokenKubeconfig(ctx.controlPlane.apiEndpoint, ca, `${token.tokenId}.${secret}`),
          ),
      ),
      clusterIdentifier: `karmada-${ctx.controlPlane.settings.name}`,
      deleteUnreachable: true,
    },
    { parent: ctx.parent, dependsOn: [tokenObject] },
  );
  const trigger = token.rotationTrigger;
  const rotating = { parent: ctx.parent, replacementTrigger: trigger };
  const key = new tls.PrivateKey(`${ctx.name}-agent-key`, { algorithm: "RSA", rsaBits: RSA_BITS }, rotating);
  const spec = objects.certificate;
  const request = new tls.CertRequest(
    `${ctx.name}-agent-csr`,
    {
      privateKeyPem: key.privateKeyPem,
      subject: { commonName: spec.commonName, organization: spec.organizations[0] },
    },
    { parent: ctx.parent },
  );
  // a new name per key: CSRs are immutable and the previous one is kept
  const csrObject = token.csr;
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
      throw new Error(
        `CSR for cluster ${ctx.settings.clusterName} was not signed: is agentcsrapproving enabled?`,
      );
    return Buffer.from(status.certificate, "base64").toString("utf8");
  });
  return {
    kubeconfig: agentKubeconfig(ctx, objects, certPem, pulumi.secret(key.privateKeyPem)),
    rotationTrigger: trigger,
    resources: [tokenObject, csr],
  };
}
