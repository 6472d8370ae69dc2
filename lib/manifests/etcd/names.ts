import { EtcdInClusterSettings } from "../../etcd/settings";
import type { EtcdInClusterPlacement, EtcdMemberAddress } from "../../pki/sans";

/** Ports of an etcd member. `metrics` is plain HTTP and serves `/health` and `/metrics` for probes. */
export const ETCD_PORTS = { client: 2379, peer: 2380, metrics: 2381 } as const;

/**
 * Keys of the `<name>-cert` Secret every member mounts. The server pair must carry both serverAuth and
 * clientAuth (the backup job presents it to etcd as its client certificate).
 */
export const ETCD_CERT_SECRET_KEYS = {
  ca: "ca.crt",
  serverCert: "server.crt",
  serverKey: "server.key",
  peerCert: "peer.crt",
  peerKey: "peer.key",
} as const;

/** Kubernetes object names of one in-cluster etcd. */
export function etcdObjectNames(settings: Pick<EtcdInClusterSettings, "name">) {
  const { name } = settings;
  return {
    /** StatefulSet; pods are `<name>-0`, `<name>-1`, … */
    statefulSet: name,
    /** Headless Service giving every member a stable DNS name (peers and advertised client URLs). */
    headlessService: name,
    /** Service clients connect to (ready members only). */
    clientService: `${name}-client`,
    /** Secret with the member certificates, keys {@link ETCD_CERT_SECRET_KEYS}; created elsewhere. */
    certSecret: `${name}-cert`,
    podDisruptionBudget: name,
    /** ConfigMap recording the founding members (written once; see membership.ts). */
    bootstrapConfigMap: `${name}-bootstrap`,
    /** Job bringing etcd's member list down to the replicas after a scale-in (membership.ts). */
    membershipJob: `${name}-members`,
    backupCronJob: `${name}-backup`,
    /** PersistentVolumeClaim backups are written to, when the backup target does not name its own. */
    backupClaim: `${name}-backup`,
  };
}

/** Pod names of the members, in ordinal order. */
export function etcdMemberNames(settings: Pick<EtcdInClusterSettings, "name" | "replicas">): string[] {
  return Array.from({ length: settings.replicas }, (_, i) => `${settings.name}-${i}`);
}

type Placement = Pick<EtcdInClusterSettings, "name" | "namespace" | "clusterDomain">;

/** Fully qualified DNS name of a member pod behind the headless Service. */
export function etcdMemberDnsName(settings: Placement, member: string): string {
  const { headlessService } = etcdObjectNames(settings);
  return `${member}.${headlessService}.${settings.namespace}.svc.${settings.clusterDomain}`;
}

/** `--initial-cluster`: every member's name and peer URL. */
export function etcdInitialCluster(settings: Placement & Pick<EtcdInClusterSettings, "replicas">): string {
  return etcdMemberNames(settings)
    .map((member) => `${member}=https://${etcdMemberDnsName(settings, member)}:${ETCD_PORTS.peer}`)
    .join(",");
}

/** URL of the client Service: what Karmada's apiservers put in `--etcd-servers`. */
export function etcdClientServiceUrl(settings: Placement): string {
  const { clientService } = etcdObjectNames(settings);
  return `https://${clientService}.${settings.namespace}.svc.${settings.clusterDomain}:${ETCD_PORTS.client}`;
}

/** Client URL of every member (what each member advertises), for clients that balance themselves. */
export function etcdMemberClientUrls(
  settings: Placement & Pick<EtcdInClusterSettings, "replicas">,
): string[] {
  return etcdMemberNames(settings).map(
    (member) => `https://${etcdMemberDnsName(settings, member)}:${ETCD_PORTS.client}`,
  );
}

/** Members and the names peers and clients dial, for the server and peer certificate SANs. */
export function etcdMemberAddresses(
  settings: Placement & Pick<EtcdInClusterSettings, "replicas">,
): EtcdMemberAddress[] {
  const { headlessService } = etcdObjectNames(settings);
  return etcdMemberNames(settings).map((member) => ({
    name: member,
    addresses: [
      etcdMemberDnsName(settings, member),
      `${member}.${headlessService}.${settings.namespace}.svc`,
    ],
  }));
}

/** Services and namespace of the in-cluster etcd, for the certificate SANs. */
export function etcdInClusterPlacement(settings: Placement): EtcdInClusterPlacement {
  const names = etcdObjectNames(settings);
  return {
    namespace: settings.namespace,
    clusterDomain: settings.clusterDomain,
    clientService: names.clientService,
    headlessService: names.headlessService,
  };
}
