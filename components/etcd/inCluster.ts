import * as pulumi from "@pulumi/pulumi";
import { EtcdInClusterSettings } from "../../lib/etcd/settings";
import { applyObjects } from "../../lib/kube/apply";
import { createSecret } from "../../lib/kube/secrets";
import {
  ETCD_CERT_SECRET_KEYS,
  etcdClientServiceUrl,
  etcdInClusterManifests,
  etcdObjectNames,
} from "../../lib/manifests/etcd";
import { IssuedPki } from "../../lib/pki/issue";
import { namespaceObject } from "../../lib/manifests/namespace";
import { PLACEHOLDERS, substitute } from "../../lib/manifests/placeholders";
import { certificatesChecksumOutput } from "../../lib/pki/checksum";

/** Resources of an in-cluster etcd, in install order. */
export interface EtcdInClusterResources {
  /** The namespace, when this cluster created it. */
  readonly namespace?: pulumi.Resource;
  readonly certSecret: pulumi.Resource;
  readonly cluster: pulumi.Resource[];
  readonly backup: pulumi.Resource[];
  readonly clientUrls: string[];
}

/**
 * Applies an in-cluster etcd: the member certificate Secret first, then the StatefulSet and Services,
 * then the optional backup CronJob. The namespace and the claims are kept on delete unless
 * `deleteDataOnDestroy`, and the next `up` adopts them (the StatefulSet's own claims by their names).
 */
export function deployEtcdInCluster(
  name: string,
  parent: pulumi.Resource,
  provider: pulumi.ProviderResource,
  settings: EtcdInClusterSettings,
  pki: IssuedPki,
  createNamespace: boolean,
): EtcdInClusterResources {
  const names = etcdObjectNames(settings);
  // Deleting a namespace deletes the PVCs in it: keep it unless the user asked to delete the data (and
  // adopt the one a previous destroy kept)
  const kept = { keptOnDestroy: !settings.deleteDataOnDestroy };
  const [namespace] = createNamespace
    ? applyObjects(name, [namespaceObject(settings.namespace)], { parent, provider, ...kept })
    : [];
  const certSecret = createSecret(
    `${name}-cert-secret`,
    {
      name: names.certSecret,
      namespace: settings.namespace,
      data: {
        [ETCD_CERT_SECRET_KEYS.ca]: pki.file("etcd-ca.crt"),
        [ETCD_CERT_SECRET_KEYS.serverCert]: pki.file("etcd-server.crt"),
        [ETCD_CERT_SECRET_KEYS.serverKey]: pki.file("etcd-server.key"),
        [ETCD_CERT_SECRET_KEYS.peerCert]: pki.file("etcd-peer.crt"),
        [ETCD_CERT_SECRET_KEYS.peerKey]: pki.file("etcd-peer.key"),
      },
    },
    { parent, provider, dependsOn: namespace ? [namespace] : [] },
  );
  const manifests = etcdInClusterManifests(settings);
  // renewed member certificates change the pod template's checksum: the StatefulSet rolls, one pod
  // at a time, each Ready (in quorum) before the next
  const checksum = certificatesChecksumOutput(
    (["etcd-ca.crt", "etcd-server.crt", "etcd-peer.crt"] as const).map((file) => pki.file(file)),
  );
  const cluster = applyObjects(name, manifests.cluster, {
    parent,
    provider,
    dependsOn: [certSecret],
    resolve: (obj) =>
      substitute(obj, { [PLACEHOLDERS.certificatesChecksum]: checksum }) as Record<string, unknown>,
  });
  // the backup claim holds the snapshots: it survives `pulumi destroy` like the data does
  const isClaim = (o: { kind: string }) => o.kind === "PersistentVolumeClaim";
  const backupOpts = { parent, provider, dependsOn: cluster };
  const backup = [
    ...applyObjects(name, manifests.backup.filter(isClaim), { ...backupOpts, ...kept }),
    ...applyObjects(
      name,
      manifests.backup.filter((o) => !isClaim(o)),
      backupOpts,
    ),
  ];
  return { namespace, certSecret, cluster, backup, clientUrls: [etcdClientServiceUrl(settings)] };
}
