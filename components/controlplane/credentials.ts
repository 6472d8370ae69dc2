import * as pulumi from "@pulumi/pulumi";
import { KarmadaComponent } from "../../lib/catalog/components";
import type { KubeObject } from "../../lib/kube/apply";
import { PLACEHOLDERS, substitute } from "../../lib/manifests/placeholders";
import { podTemplateName } from "../../lib/manifests/workloads/metadata";
import { certificatesChecksumOutput } from "../../lib/pki/checksum";
import { internalApiServerUrl } from "../../lib/controlplane/endpoint";
import { objectNames } from "../../lib/controlplane/names";
import { ControlPlaneSettings } from "../../lib/controlplane/settings";
import { createSecret } from "../../lib/kube/secrets";
import { kubeconfigOutput } from "../../lib/kubeconfig";
import {
  COMPONENT_PKI_FILES,
  KUBECONFIG_COMPONENTS,
  PkiFile,
  podCertificateFiles,
} from "../../lib/pki/layout";

/** Looks up the content of a PKI file (control-plane PKI or, for etcd files, the EtcdCluster). */
export type PkiFiles = (file: PkiFile) => pulumi.Output<string>;

const MANAGED_BY = {
  "app.kubernetes.io/managed-by": "pulumi-karmada",
  "app.kubernetes.io/part-of": "karmada",
};

/** A component's kubeconfig for karmada-apiserver, with its own client identity (secret). */
export function componentKubeconfig(
  settings: ControlPlaneSettings,
  component: KarmadaComponent,
  files: PkiFiles,
): pulumi.Output<string> {
  return kubeconfigOutput({
    server: internalApiServerUrl(settings),
    caPem: files("ca.crt"),
    certPem: files(`${component}-client.crt`),
    keyPem: files(`${component}-client.key`),
    clusterName: "karmada-apiserver",
    userName: component,
    contextName: component,
  });
}

/**
 * The Secrets the control plane's workloads mount: per enabled component, its certificate Secret
 * (exactly the files of COMPONENT_PKI_FILES) and, when it talks to karmada-apiserver, its kubeconfig
 * Secret. Every value is a Pulumi secret.
 */
export function createComponentSecrets(
  name: string,
  settings: ControlPlaneSettings,
  files: PkiFiles,
  opts: pulumi.CustomResourceOptions,
): pulumi.Resource[] {
  const enabled = Object.values(settings.components).filter(
    (c) => c.enabled && c.component !== "karmada-agent" && c.component !== "karmada-scheduler-estimator",
  );
  const secrets: pulumi.Resource[] = [];
  for (const { component } of enabled) {
    const certFiles = COMPONENT_PKI_FILES[component];
    secrets.push(
      createSecret(
        `${name}-${component}-cert`,
        {
          name: objectNames.certSecret(component),
          namespace: settings.namespace,
          labels: MANAGED_BY,
          data: Object.fromEntries(certFiles.map((file) => [file, files(file)])),
        },
        opts,
      ),
    );
    if (KUBECONFIG_COMPONENTS.includes(component)) {
      secrets.push(
        createSecret(
          `${name}-${component}-config`,
          {
            name: objectNames.kubeconfigSecret(component),
            namespace: settings.namespace,
            labels: MANAGED_BY,
            data: { [objectNames.kubeconfigKey]: componentKubeconfig(settings, component, files) },
          },
          opts,
        ),
      );
    }
  }
  return secrets;
}

/**
 * The `resolve` of the control plane's workloads: a pod template's certificates-checksum placeholder
 * becomes the digest of the certificates its component mounts (its cert Secret holds `secretFiles`),
 * so renewing them rolls exactly the workloads that read them.
 */
export function resolveCertificatesChecksum(
  files: PkiFiles,
  secretFiles: (component: KarmadaComponent) => readonly PkiFile[] = (c) => COMPONENT_PKI_FILES[c],
): (obj: KubeObject) => Record<string, unknown> {
  return (obj) => {
    const component = podTemplateName(obj) as KarmadaComponent | undefined;
    if (!component || !(component in COMPONENT_PKI_FILES)) return obj;
    const checksum = certificatesChecksumOutput(
      podCertificateFiles(component, secretFiles(component)).map(files),
    );
    return substitute(obj, { [PLACEHOLDERS.certificatesChecksum]: checksum }) as Record<string, unknown>;
  };
}
