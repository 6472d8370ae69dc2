import { createHash } from "crypto";
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
  /** The membership job (after `cluster`). */
  readonly membership: pulumi.Resource[];
  readonly backup: pulumi.Resource[];
  readonly clientUrls: string[];
}

/**
 * Applies an in-cluster etcd: the member certificate Secret and the bootstrap record first, then the
 * StatefulSet and Services, then the membership job, then the optional backup CronJob. The namespace and the claims are kept on delete unless
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
  // which members may found the cluster: recorded at creation, never updated (a scale-out's members join)
  const bootstrap = applyObjects(name, manifests.bootstrap, {
    parent,
    provider,
    dependsOn: namespace ? [namespace] : [],
    ignoreChanges: ["data"],
  });
  const cluster = applyObjects(name, manifests.cluster, {
    parent,
    provider,
    dependsOn: [certSecret, ...bootstrap],
    resolve: (obj) =>
      substitute(obj, { [PLACEHOLDERS.certificatesChecksum]: checksum }) as Record<string, unknown>,
  });
  // after the StatefulSet is rolled out, so a scale-in's pods are gone before etcd forgets their members;
  // a replica change replaces the job (same name: the old one goes first)
  const membership = applyObjects(name, manifests.membership, {
    parent,
    provider,
    dependsOn: cluster,
    // a Job's pod template is immutable: any change of it is a new run of the job
    replacementTrigger: createHash("sha256").update(JSON.stringify(manifests.membership)).digest("hex"),
    deleteBeforeReplace: true,
  });
  // the backup claim holds the snapshots: it survives `pulumi destroy` like the data does
  const isClaim = (o: { kind: string }) => o.kind === "PersistentVolumeClaim";
  const backupOpts = { parent, provider, dependsOn: [...cluster, ...membership] };
  const backup = [
    ...applyObjects(name, manifests.backup.filter(isClaim), { ...backupOpts, ...kept }),
    ...applyObjects(
      name,
      manifests.backup.filter((o) => !isClaim(o)),
      backupOpts,
    ),
  ];
  return { namespace, certSecret, cluster, membership, backup, clientUrls: [etcdClientServiceUrl(settings)] };
}
