import * as pulumi from "@pulumi/pulumi";
import { ControlPlaneComponent } from "../../lib/controlplane/flags-ports";
import {
  componentBundleFiles,
  fingerprintFiles,
  frameBundle,
  hostApiServerUrl,
  KUBECONFIG_FILE,
  publicFilesFingerprint,
} from "../../lib/controlplane/hosts";
import { ControlPlaneSettings } from "../../lib/controlplane/settings";
import { ResolvedHost } from "../../lib/hosts/spec";
import { kubeconfigOutput } from "../../lib/kubeconfig";
import { PkiFile } from "../../lib/pki/layout";
import { PkiFiles } from "./credentials";

/** What one component receives on one host. */
export interface HostComponentFiles {
  /** Its certificates, keys and kubeconfig framed for stdin: a secret. */
  readonly bundle: pulumi.Output<string>;
  /** SHA-256 of its public files (not secret: a hash of certificates), which the service script checks. */
  readonly fingerprint: pulumi.Output<string>;
}

/**
 * A component's files on a host, from the PKI (`files`, the same lookup the containerized Secrets use)
 * and — for components with a kubeconfig — a kubeconfig pointing at the host's own karmada-apiserver,
 * with the component's client identity.
 */
export function hostComponentFiles(
  cp: ControlPlaneSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
  files: PkiFiles,
): HostComponentFiles {
  const contents: Record<string, pulumi.Output<string>> = {};
  for (const file of componentBundleFiles(component)) {
    contents[file] =
      file === KUBECONFIG_FILE
        ? kubeconfigOutput({
            server: hostApiServerUrl(cp, host),
            caPem: files("ca.crt"),
            certPem: files(`${component}-client.crt` as PkiFile),
            keyPem: files(`${component}-client.key` as PkiFile),
            clusterName: "karmada-apiserver",
            userName: component,
            contextName: component,
          })
        : files(file);
  }
  const publicOnly = Object.fromEntries(fingerprintFiles(component).map((f) => [f, contents[f]]));
  return {
    bundle: pulumi.secret(pulumi.all(contents).apply((c) => frameBundle(component, c))),
    // certificates only: a hash of public material stays readable in previews and logs
    fingerprint: pulumi.unsecret(pulumi.all(publicOnly).apply((c) => publicFilesFingerprint(component, c))),
  };
}
