/**
 * A control plane with two member clusters — one joined in push mode (`karmadactl join`), one
 * registered in pull mode (`karmadactl register`, karmada-agent) — plus the descheduler and a generic
 * manifest addon installed on every member. Written the way an outside project uses the package.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { Addon, EtcdCluster, KarmadaControlPlane, MemberRegistration } from "pulumi-karmada";

const config = new pulumi.Config();
const host = new k8s.Provider("host", {
  kubeconfig: config.getSecret("hostKubeconfig"),
  clusterIdentifier: "host",
});
const etcd = new EtcdCluster("etcd", { inCluster: { replicas: 3 } }, { provider: host });
const karmada = new KarmadaControlPlane(
  "karmada",
  {
    etcd,
    apiServer: { serviceType: "LoadBalancer", externalEndpoint: "karmada.example.com:5443" },
    crds: config.getObject("crds"),
  },
  { provider: host },
);

// Each member through its own provider: registrations proceed concurrently, with no edge between them.
const memberSpecs = [
  { clusterName: "edge-push", mode: "Push" as const, apiEndpoint: "https://edge-push.example.com:6443" },
  { clusterName: "edge-pull", mode: "Pull" as const, apiEndpoint: "https://edge-pull.example.com:6443" },
];
const members = memberSpecs.map((spec) => {
  const provider = new k8s.Provider(spec.clusterName, {
    kubeconfig: config.requireSecret(`${spec.clusterName}Kubeconfig`),
    clusterIdentifier: spec.clusterName,
  });
  new MemberRegistration(
    spec.clusterName,
    { ...spec, controlPlane: karmada, region: "eu-west-1" },
    { provider },
  );
  return { clusterName: spec.clusterName, provider };
});

new Addon("descheduler", { kind: "descheduler", controlPlane: karmada });
new Addon("team-namespace", {
  kind: "manifests",
  target: "members",
  controlPlane: karmada,
  members,
  manifests: { objects: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } }] },
});

export const apiEndpoint = karmada.apiEndpoint;
export const kubeconfig = pulumi.secret(karmada.adminKubeconfig);
