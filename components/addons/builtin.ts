import * as pulumi from "@pulumi/pulumi";
import {
  builtinApiObjects,
  builtinCertificates,
  builtinPkiFiles,
  builtinSettings,
  builtinWorkloads,
} from "../../lib/addons/builtins";
import { BuiltinOverrides, CONTROL_PLANE_BUILTINS, ControlPlaneBuiltin } from "../../lib/addons/config";
import { objectNames } from "../../lib/controlplane/names";
import { applyObjects, KubeObject } from "../../lib/kube/apply";
import { createSecret } from "../../lib/kube/secrets";
import { PLACEHOLDERS, substitute } from "../../lib/manifests/placeholders";
import { issuePki } from "../../lib/pki/issue";
import { PkiFile } from "../../lib/pki/layout";
import { ConfigError } from "../../lib/validation/errors";
import { componentKubeconfig, resolveCertificatesChecksum } from "../controlplane/credentials";
import type { EtcdCluster } from "../etcdCluster";
import type { KarmadaControlPlane } from "../karmadaControlPlane";

/** What a control-plane built-in is installed with. */
export interface BuiltinContext {
  readonly name: string;
  readonly parent: pulumi.Resource;
  readonly controlPlane: KarmadaControlPlane;
  readonly host: pulumi.ProviderResource;
  /** Karmada's etcd: karmada-search caches into it. */
  readonly etcd?: EtcdCluster;
}

/**
 * karmada-descheduler, -search or -metrics-adapter next to an existing control plane: certificates from
 * the Karmada CA key, the cert and kubeconfig Secrets the workload mounts (named as the control plane
 * names them), the control plane's own manifests for the workload, and — for search and the metrics
 * adapter — their APIServices inside Karmada, after the workload.
 */
export function installBuiltin(
  ctx: BuiltinContext,
  kind: ControlPlaneBuiltin,
  overrides: BuiltinOverrides,
): pulumi.Resource[] {
  const cp = ctx.controlPlane;
  const component = CONTROL_PLANE_BUILTINS[kind];
  const settings = builtinSettings(cp.settings, kind, overrides);
  if (kind === "search" && !ctx.etcd) {
    throw new ConfigError(
      "etcd",
      "karmada-search stores its cache in Karmada's etcd",
      "the EtcdCluster given to the control plane",
    );
  }
  if (!cp.caKeyPem) {
    throw new ConfigError(
      "controlPlane",
      "holds no Karmada CA key to issue the addon's certificates",
      "a control plane with its CA key",
    );
  }
  const pki = issuePki({
    name: ctx.name,
    parent: ctx.parent,
    certificates: builtinCertificates(settings, kind),
    cas: { "karmada-ca": { certPem: cp.caCertPem, keyPem: cp.caKeyPem } },
  });
  const etcdFiles: Partial<Record<PkiFile, pulumi.Output<string> | undefined>> = {
    "etcd-ca.crt": ctx.etcd?.caCertPem,
    "etcd-client.crt": ctx.etcd?.clientCertPem,
    "etcd-client.key": ctx.etcd?.clientKeyPem,
  };
  const files = (file: PkiFile): pulumi.Output<string> => etcdFiles[file] ?? pki.file(file);
  const host = { parent: ctx.parent, provider: ctx.host };
  const secrets = [
    createSecret(
      `${ctx.name}-${component}-cert`,
      {
        name: objectNames.certSecret(component),
        namespace: settings.namespace,
        data: Object.fromEntries(builtinPkiFiles(component).map((f) => [f, files(f)])),
      },
      host,
    ),
    createSecret(
      `${ctx.name}-${component}-config`,
      {
        name: objectNames.kubeconfigSecret(component),
        namespace: settings.namespace,
        data: { [objectNames.kubeconfigKey]: componentKubeconfig(settings, component, files) },
      },
      host,
    ),
  ];
  // the controllers come after every control-plane object inside Karmada: depending on them is
  // depending on all of it, and destroy then deletes the addon while they still run
  const workload = applyObjects(ctx.name, builtinWorkloads(settings, kind), {
    ...host,
    dependsOn: [...cp.controllers, ...secrets],
    // renewed certificates roll the workload, as for the control plane's own
    resolve: resolveCertificatesChecksum(files, builtinPkiFiles),
  });
  const caBundle = cp.caCertPem.apply((pem) => Buffer.from(pem).toString("base64"));
  const apis = applyObjects(ctx.name, builtinApiObjects(settings, kind), {
    parent: ctx.parent,
    provider: cp.karmadaProvider,
    dependsOn: [...cp.controllers, ...workload],
    resolve: (obj: KubeObject) =>
      substitute(obj, { [PLACEHOLDERS.caBundle]: caBundle }) as pulumi.Input<Record<string, unknown>>,
  });
  return [...secrets, ...workload, ...apis];
}
