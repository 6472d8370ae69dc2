/**
 * The sandbox estate as one Pulumi program: HA etcd on three hosts, a Karmada control plane in hosts
 * mode on two more behind a VIP, three member clusters (two push, one pull), and a Deployment with a
 * PropagationPolicy created through the Karmada provider. A plain description in, a PulumiFn out.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { deployEtcdOnHosts, EtcdHostsPki } from "../components/etcd/hostsMode";
import { EtcdCluster } from "../components/etcdCluster";
import { KarmadaControlPlane } from "../components/karmadaControlPlane";
import { MemberRegistration } from "../components/memberRegistration";
import { ComponentKey } from "../lib/controlplane/config";
import { ComponentBinaryConfig } from "../lib/controlplane/hosts";
import { clientEndpoints, EtcdHostsArgs, resolveEtcdHostsSettings } from "../lib/etcd/hosts";
import { HostSpec } from "../lib/hosts/spec";
import { CertSpec, etcdCertificates } from "../lib/pki/certificates";
import { issuePki } from "../lib/pki/issue";
import { MirroredArtifact } from "./sandbox-mirror";

/** A loopback host of the test bed. */
export interface SandboxHost {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly root: string;
}

/** A member cluster (a loopback kube-apiserver). */
export interface SandboxMember {
  readonly name: string;
  readonly mode: "Push" | "Pull";
  readonly server: string;
  /** Admin kubeconfig (a credential). */
  readonly kubeconfig: string;
}

/** Everything the program is built from. */
export interface SandboxDescription {
  readonly etcdHosts: readonly SandboxHost[];
  readonly controlPlaneHosts: readonly SandboxHost[];
  /** The test bed's SSH key (a throw-away key). */
  readonly sshKey: string;
  /** The VIP in front of the control-plane hosts. */
  readonly vip: string;
  readonly artifacts: Readonly<Record<string, MirroredArtifact>>;
  readonly etcdVersion: string;
  /** Path of the Karmada CRD bundle (crds.tar.gz). */
  readonly crds: string;
  readonly members: readonly SandboxMember[];
}

/** What to change between runs. */
export interface SandboxVariant {
  /** karmada-scheduler at another version, from a directory on the hosts. */
  readonly scheduler?: { readonly version: string; readonly path: string };
}

/** Binaries of each control-plane component: its own tarball on the mirror. */
const COMPONENT_TARBALLS: Readonly<Partial<Record<ComponentKey, string>>> = {
  apiServer: "kube-apiserver",
  kubeControllerManager: "kube-controller-manager",
  aggregatedApiServer: "karmada-aggregated-apiserver",
  controllerManager: "karmada-controller-manager",
  scheduler: "karmada-scheduler",
  webhook: "karmada-webhook",
};

const hostSpec = (h: SandboxHost, key: string): HostSpec => ({
  name: h.name,
  address: h.address,
  port: h.port,
  root: h.root,
  privateKey: pulumi.secret(key),
});

/** etcd on hosts: its own PKI, then the commands, as children of an EtcdCluster (so depending on it waits for them). */
function etcdOnHosts(d: SandboxDescription): EtcdCluster {
  const args: EtcdHostsArgs = {
    hosts: d.etcdHosts.map((h) => hostSpec(h, d.sshKey)),
    version: d.etcdVersion,
    artifact: d.artifacts.etcd,
    serviceManager: "supervisor",
    backup: { enabled: false },
  };
  const endpoints = clientEndpoints(resolveEtcdHostsSettings("etcd", args));
  const specs = etcdCertificates({
    members: d.etcdHosts.map((h) => ({ name: h.name, addresses: [h.address] })),
  });
  const healthcheck = specs.find((s) => s.id === "etcd-healthcheck-client")!;
  const karmadaClient: CertSpec = {
    ...healthcheck,
    id: "etcd-client",
    commonName: "karmada-etcd-client",
    files: { cert: "etcd-client.crt", key: "etcd-client.key" },
  };
  const pkiParent = new pulumi.ComponentResource("sandbox:index:EtcdPki", "etcd-pki");
  const pki = issuePki({ name: "etcd", parent: pkiParent, certificates: [...specs, karmadaClient] });
  const etcd = new EtcdCluster("etcd", {
    mode: "external",
    external: {
      endpoints,
      caCertPem: pki.file("etcd-ca.crt"),
      clientCertPem: pki.file("etcd-client.crt"),
      clientKeyPem: pki.file("etcd-client.key"),
    },
  });
  const member = {
    serverCert: pki.file("etcd-server.crt"),
    serverKey: pki.file("etcd-server.key"),
    peerCert: pki.file("etcd-peer.crt"),
    peerKey: pki.file("etcd-peer.key"),
  };
  const hostsPki: EtcdHostsPki = {
    caCert: pki.file("etcd-ca.crt"),
    members: Object.fromEntries(d.etcdHosts.map((h) => [h.name, member])),
    client: { cert: pki.file("etcd-healthcheck-client.crt"), key: pki.file("etcd-healthcheck-client.key") },
  };
  deployEtcdOnHosts(etcd, "etcd", args, hostsPki);
  return etcd;
}

/** The program for `d`, with `variant` applied. */
export function sandboxProgram(
  d: SandboxDescription,
  variant: SandboxVariant = {},
): pulumi.automation.PulumiFn {
  return async () => {
    const etcd = etcdOnHosts(d);
    const components: Partial<Record<ComponentKey, ComponentBinaryConfig>> = Object.fromEntries(
      Object.entries(COMPONENT_TARBALLS).map(([key, tarball]) => [key, { binaries: d.artifacts[tarball!] }]),
    );
    if (variant.scheduler) {
      components.scheduler = {
        version: variant.scheduler.version,
        binaries: { path: variant.scheduler.path },
      };
    }
    const controlPlane = new KarmadaControlPlane("karmada", {
      mode: "hosts",
      etcd,
      apiServer: { externalEndpoint: `${d.vip}:5443` },
      // TEST BED ONLY: a loopback advertise address cannot be published in the `kubernetes` Endpoints
      components: { apiServer: { extraArgs: { "endpoint-reconciler-type": "none" } } },
      // TEST BED ONLY: member clusters have no kubelet, so the pull-mode agent's pods never start
      awaitWorkloads: false,
      crds: { kind: "path", path: d.crds },
      hosts: {
        machines: d.controlPlaneHosts.map((h) => hostSpec(h, d.sshKey)),
        serviceManager: "supervisor",
        components,
        // loopback host addresses cannot be Endpoints: the VIP forwards 443 to the aggregated apiservers
        apiServiceHosts: { aggregatedApiserver: d.vip },
        healthTimeoutSeconds: 240,
      },
    });
    const registrations = d.members.map((m) => {
      const provider = new k8s.Provider(`member-${m.name}`, {
        kubeconfig: pulumi.secret(m.kubeconfig),
        clusterIdentifier: `member-${m.name}`,
      });
      return new MemberRegistration(
        m.name,
        { controlPlane, clusterName: m.name, mode: m.mode, apiEndpoint: m.server },
        { provider },
      );
    });
    const karmada = { provider: controlPlane.karmadaProvider };
    const ready: Promise<pulumi.Resource[]> = Promise.all([
      controlPlane.controllersReady,
      controlPlane.karmadaObjectsReady,
    ]).then(([c, k]) => [...c, ...k, ...registrations]);
    const deployment = new k8s.apps.v1.Deployment(
      "nginx",
      {
        metadata: { name: "nginx", namespace: "default", annotations: { "pulumi.com/skipAwait": "true" } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "nginx" } },
          template: {
            metadata: { labels: { app: "nginx" } },
            spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
          },
        },
      },
      { ...karmada, dependsOn: ready },
    );
    const afterDeployment: Promise<pulumi.Resource[]> = ready.then((r) => [...r, deployment]);
    new k8s.apiextensions.CustomResource(
      "nginx-propagation",
      {
        apiVersion: "policy.karmada.io/v1alpha1",
        kind: "PropagationPolicy",
        metadata: { name: "nginx", namespace: "default" },
        spec: {
          resourceSelectors: [{ apiVersion: "apps/v1", kind: "Deployment", name: "nginx" }],
          placement: { clusterAffinity: { clusterNames: d.members.map((m) => m.name) } },
        },
      },
      { ...karmada, dependsOn: afterDeployment },
    );
    return {
      adminKubeconfig: controlPlane.adminKubeconfig,
      apiEndpoint: controlPlane.apiEndpoint,
      etcdEndpoints: etcd.clientUrls,
    };
  };
}
