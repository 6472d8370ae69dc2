import * as pulumi from "@pulumi/pulumi";
import { EtcdInClusterSettings } from "../lib/etcd/settings";
import { etcdInClusterPlacement } from "../lib/manifests/etcd";
import { CertSpec, etcdCertificates } from "../lib/pki/certificates";
import { IssuedPki, issuePki } from "../lib/pki/issue";
import { checkedCaSource } from "../lib/pki/config-check";
import { EtcdPkiParams } from "../lib/pki/sans";
import { deployEtcdOnHosts } from "./etcd/hostsMode";
import { planEtcd } from "./etcd/plan";
import type { EtcdClusterArgs, EtcdMode, EtcdPkiConfig } from "./etcd/args";
import { deployEtcdInCluster } from "./etcd/inCluster";

export { ETCD_MODES } from "./etcd/args";
export type { EtcdClusterArgs, EtcdMode, EtcdPkiConfig } from "./etcd/args";

/** The identity Karmada's API servers present to etcd (signed by the etcd CA). */
function karmadaClientSpec(healthcheck: CertSpec): CertSpec {
  return {
    ...healthcheck,
    id: "etcd-client",
    commonName: "karmada-etcd-client",
    files: { cert: "etcd-client.crt", key: "etcd-client.key" },
  };
}

/**
 * An etcd cluster for Karmada, with TLS on client and peer traffic and its own CA (separate from
 * Karmada's). Hand it to `KarmadaControlPlane` as `etcd`; it exposes the client URLs and the client
 * credentials Karmada's API servers use.
 *
 * Child names: `${name}-etcd-ca` (CA), `${name}-etcd-server-cert`, `${name}-etcd-peer-cert`,
 * `${name}-etcd-client-cert` (leaves), `${name}-cert-secret`, and one resource per Kubernetes object
 * (`${name}-statefulset-<ns>-<name>` …).
 */
export class EtcdCluster extends pulumi.ComponentResource {
  /** Where etcd runs (`args.mode`, default `inCluster`). */
  public readonly mode: EtcdMode;
  /** Client URLs (plain values: known at construction, so manifests can use them). */
  public readonly clientUrls: string[];
  /** CA that signed the server certificates. */
  public readonly caCertPem: pulumi.Output<string>;
  /** Client certificate for Karmada's API servers. */
  public readonly clientCertPem: pulumi.Output<string>;
  /** Its private key (secret). */
  public readonly clientKeyPem: pulumi.Output<string>;
  /** Expiry of each issued leaf (managed modes). */
  public readonly certificateExpiry: pulumi.Output<Record<string, string>>;
  /** Resolved in-cluster settings, when in that mode. */
  public readonly inClusterSettings?: EtcdInClusterSettings;
  /** Hosts mode: completes when every member is healthy and membership matches the host list. */
  public readonly ready?: pulumi.Resource;
  /**
   * Hosts mode: run `bash <path>` on `host` for an on-demand snapshot (the periodic job's script, with
   * checksum, `latest` pointer and retention); present when the backup job is enabled.
   */
  public readonly snapshotCommand?: {
    /** Name of the member host (`hosts.hosts[].name`) that runs the backup job: `backup.host`. */
    readonly host: string;
    /** Path of the snapshot script on that host. */
    readonly path: string;
  };
  /** The host-cluster namespace this cluster created (in-cluster mode), for components sharing it. */
  public readonly namespace?: pulumi.Resource;

  /**
   * Checks `args` before anything is registered (a `ConfigError` naming the field), then creates the
   * cluster (nothing but the component itself in `external` mode).
   * @param name Component name; prefix of every child's Pulumi name.
   * @param args Mode and its settings; omitted, an in-cluster etcd with one member.
   * @param opts Resource options; in `inCluster` mode their `kubernetes` provider is the host cluster.
   */
  constructor(name: string, args: EtcdClusterArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    // defaults → validation, before anything (this component included) is registered
    const plan = planEtcd(name, args, opts);
    super("karmada:index:EtcdCluster", name, {}, { ...opts, protect: plan.protect ?? opts.protect });
    this.mode = plan.mode;

    if (plan.external) {
      const external = plan.external;
      this.clientUrls = [...external.endpoints];
      this.caCertPem = pulumi.output(external.caCertPem);
      this.clientCertPem = pulumi.output(external.clientCertPem);
      this.clientKeyPem = pulumi.secret(external.clientKeyPem);
      this.certificateExpiry = pulumi.output<Record<string, string>>({});
    } else if (plan.hosts) {
      const resolved = plan.hosts;
      const pki = this.issueCertificates(name, plan.pki, {
        members: resolved.members.map((m) => ({ name: m.name, addresses: [m.address] })),
      });
      // one server/peer pair whose SANs cover every member: adding a member reissues it
      const member = {
        serverCert: pki.file("etcd-server.crt"),
        serverKey: pki.file("etcd-server.key"),
        peerCert: pki.file("etcd-peer.crt"),
        peerKey: pki.file("etcd-peer.key"),
      };
      const deployed = deployEtcdOnHosts(this, name, resolved, {
        caCert: pki.file("etcd-ca.crt"),
        members: Object.fromEntries(resolved.members.map((m) => [m.name, member])),
        client: {
          cert: pki.file("etcd-healthcheck-client.crt"),
          key: pki.file("etcd-healthcheck-client.key"),
        },
      });
      this.ready = deployed.ready;
      if (resolved.backup.enabled) this.snapshotCommand = deployed.snapshotCommand;
      this.clientUrls = deployed.clientEndpoints;
      this.caCertPem = pki.file("etcd-ca.crt");
      this.clientCertPem = pki.file("etcd-client.crt");
      this.clientKeyPem = pki.file("etcd-client.key");
      this.certificateExpiry = pulumi.all({ ...pki.notAfter }) as pulumi.Output<Record<string, string>>;
    } else {
      const settings = plan.inCluster!;
      const pki = this.issueCertificates(name, plan.pki, {
        // the headless Service wildcard covers every member: a replica change reissues nothing and
        // rolls no member
        members: [],
        inCluster: etcdInClusterPlacement(settings),
      });
      // wiring: certificates → Secret, bootstrap record → StatefulSet/Services → membership job → backup
      const deployed = deployEtcdInCluster(name, this, plan.provider!, settings, pki, plan.createNamespace);
      this.inClusterSettings = settings;
      this.namespace = deployed.namespace;
      this.clientUrls = deployed.clientUrls;
      this.caCertPem = pki.file("etcd-ca.crt");
      this.clientCertPem = pki.file("etcd-client.crt");
      this.clientKeyPem = pki.file("etcd-client.key");
      this.certificateExpiry = pulumi.all({ ...pki.notAfter }) as pulumi.Output<Record<string, string>>;
    }
    this.registerOutputs({
      clientUrls: this.clientUrls,
      caCertPem: this.caCertPem,
      clientCertPem: this.clientCertPem,
      clientKeyPem: this.clientKeyPem,
      certificateExpiry: this.certificateExpiry,
    });
  }

  private issueCertificates(
    name: string,
    pki: EtcdPkiConfig,
    placement: Omit<EtcdPkiParams, "extraSans">,
  ): IssuedPki {
    const specs = etcdCertificates(
      { ...placement, extraSans: pki.extraSans },
      { leafValidityHours: pki.leafValidityHours },
    );
    const healthcheck = specs.find((s) => s.id === "etcd-healthcheck-client")!;
    return issuePki({
      name,
      parent: this,
      certificates: [...specs, karmadaClientSpec(healthcheck)],
      cas: pki.ca ? { "etcd-ca": checkedCaSource("pki.ca", pki.ca, pki) } : {},
      caValidityHours: pki.caValidityHours,
      rotation: pki.rotation,
    });
  }
}
