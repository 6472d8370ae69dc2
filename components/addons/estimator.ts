import * as pulumi from "@pulumi/pulumi";
import { BuiltinOverrides } from "../../lib/addons/config";
import {
  ESTIMATOR_CERT_KEYS,
  estimatorCertificate,
  estimatorManifests,
  estimatorNames,
} from "../../lib/addons/estimator";
import { applyObjects } from "../../lib/kube/apply";
import { createSecret } from "../../lib/kube/secrets";
import { issuePki } from "../../lib/pki/issue";
import { ConfigError } from "../../lib/validation/errors";
import type { KarmadaControlPlane } from "../karmadaControlPlane";

/** One member an estimator serves. */
export interface EstimatorMember {
  readonly clusterName: string;
  /** The member's kubeconfig (as seen from the host cluster); stored as a secret. */
  readonly kubeconfig: pulumi.Input<string>;
}

/**
 * karmada-scheduler-estimator for one member on the host cluster: Secret `<cluster>-kubeconfig`, a
 * serving certificate from the Karmada CA, Deployment and Service `karmada-scheduler-estimator-<cluster>`.
 * Every resource is this member's only (prefix `<name>-<cluster>`), so members stay independent.
 */
export function installEstimator(
  name: string,
  parent: pulumi.Resource,
  controlPlane: KarmadaControlPlane,
  host: pulumi.ProviderResource,
  member: EstimatorMember,
  overrides: BuiltinOverrides,
): pulumi.Resource[] {
  if (!controlPlane.caKeyPem) {
    throw new ConfigError(
      "controlPlane",
      "holds no Karmada CA key to issue the estimator's certificate",
      "a control plane with its CA key",
    );
  }
  const settings = controlPlane.settings;
  const names = estimatorNames(member.clusterName);
  const prefix = `${name}-${member.clusterName}`;
  const spec = estimatorCertificate(settings, member.clusterName);
  const pki = issuePki({
    name: prefix,
    parent,
    certificates: [spec],
    cas: { "karmada-ca": { certPem: controlPlane.caCertPem, keyPem: controlPlane.caKeyPem } },
  });
  const opts = { parent, provider: host };
  const secrets = [
    createSecret(
      `${prefix}-kubeconfig`,
      {
        name: names.kubeconfigSecret,
        namespace: settings.namespace,
        data: { [names.kubeconfigKey]: member.kubeconfig },
      },
      opts,
    ),
    createSecret(
      `${prefix}-cert`,
      {
        name: names.certSecret,
        namespace: settings.namespace,
        data: {
          [ESTIMATOR_CERT_KEYS.ca]: controlPlane.caCertPem,
          [ESTIMATOR_CERT_KEYS.cert]: pki.leaves[spec.id].certPem,
          [ESTIMATOR_CERT_KEYS.key]: pki.leaves[spec.id].keyPem,
        },
      },
      opts,
    ),
  ];
  const workload = applyObjects(prefix, estimatorManifests(settings, member.clusterName, overrides), {
    ...opts,
    dependsOn: secrets,
  });
  return [...secrets, ...workload];
}
