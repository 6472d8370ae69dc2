/**
 * The program the graph bench measures with our components: one containerized KarmadaControlPlane (on
 * an external etcd, so that the figure is the control plane's and the members', not etcd's) and `members`
 * push-mode MemberRegistrations, each with its member cluster's provider.
 */
import * as k8s from "@pulumi/kubernetes";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { EtcdCluster } from "../../components/etcdCluster";
import { KarmadaControlPlane } from "../../components/karmadaControlPlane";
import { MemberRegistration } from "../../components/memberRegistration";
import { ExternalEtcdCredentials } from "../../devkit/pki";
import { CrdSource } from "../../lib/crds";

/**
 * The release's CRD bundle from the test bed (`TESTBED_KARMADA_CRDS`, which bench/graph.ts sets from
 * scripts/testbed/env.sh) when built, else the unit tests' small fixture bundle.
 */
export function benchCrdSource(): CrdSource {
  const tarball = process.env.TESTBED_KARMADA_CRDS;
  return tarball && existsSync(tarball)
    ? { kind: "path", path: tarball }
    : { kind: "path", path: join(__dirname, "../../test/fixtures/crds") };
}

/** How the bench's output names a CRD source: the release's bundle, or the fixture (fewer CRDs). */
export function describeCrdSource(source: CrdSource): string {
  return source.kind === "path" && source.path.endsWith(".tar.gz")
    ? `the release's (${source.path})`
    : "test/fixtures/crds (the test bed is not built: fewer CRDs than a release has)";
}

/**
 * Registers the estate: host provider, etcd (external, with `etcdCredentials`: made before the clock, as
 * a program's config would be read), control plane, then `members` push members.
 */
export function buildBenchEstate(
  members: number,
  crds: CrdSource,
  etcdCredentials: ExternalEtcdCredentials,
): void {
  const host = new k8s.Provider("host", { kubeconfig: "/etc/kubeconfigs/host", clusterIdentifier: "host" });
  const etcd = new EtcdCluster(
    "etcd",
    {
      mode: "external",
      external: {
        endpoints: ["https://etcd.example.com:2379"],
        ...etcdCredentials,
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
