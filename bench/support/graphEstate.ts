/**
 * The program the graph bench measures with our components: one containerized KarmadaControlPlane (on
 * an external etcd, so that the figure is the control plane's and the members', not etcd's) and `members`
 * push-mode MemberRegistrations, each with its member cluster's provider.
 */
import * as k8s from "@pulumi/kubernetes";
import { join } from "node:path";
import { EtcdCluster } from "../../components/etcdCluster";
import { KarmadaControlPlane } from "../../components/karmadaControlPlane";
import { MemberRegistration } from "../../components/memberRegistration";
import { CrdSource } from "../../lib/crds";

const pem = (label: string) => `-----BEGIN ${label}-----\nbench\n-----END ${label}-----\n`;

/** The release's CRD bundle from the test bed when built, else the unit tests' small fixture bundle. */
export function benchCrdSource(): CrdSource {
  const tarball = process.env.TESTBED_KARMADA_CRDS;
  return tarball
    ? { kind: "path", path: tarball }
    : { kind: "path", path: join(__dirname, "../../test/fixtures/crds") };
}

/** Registers the estate: host provider, etcd, control plane, then `members` push members. */
export function buildBenchEstate(members: number, crds: CrdSource): void {
  const host = new k8s.Provider("host", { kubeconfig: "/etc/kubeconfigs/host", clusterIdentifier: "host" });
  const etcd = new EtcdCluster(
    "etcd",
    {
      mode: "external",
      external: {
        endpoints: ["https://etcd.example.com:2379"],
        caCertPem: pem("CERTIFICATE"),
        clientCertPem: pem("CERTIFICATE"),
        clientKeyPem: pem("PRIVATE KEY"),
      },
    },
    { provider: host },
  );
  const controlPlane = new KarmadaControlPlane("karmada", { etcd, crds }, { provider: host });
  for (let i = 0; i < members; i++) {
    const clusterName = `member${i}`;
    const provider = new k8s.Provider(`member-${clusterName}`, {
      kubeconfig: `/etc/kubeconfigs/${clusterName}`,
      clusterIdentifier: clusterName,
    });
    new MemberRegistration(
      clusterName,
      { clusterName, mode: "Push", apiEndpoint: `https://${clusterName}.example.com:6443`, controlPlane },
      { provider },
    );
  }
}
