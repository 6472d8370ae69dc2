/**
 * Bad input fails while the program is constructed, before any resource is registered, with an error
 * naming the field and what is allowed (issue: validation before anything is applied).
 */
import * as k8s from "@pulumi/kubernetes";
import { EtcdCluster, EtcdClusterArgs } from "../../../components/etcdCluster";
import { KarmadaControlPlane, KarmadaControlPlaneArgs } from "../../../components/karmadaControlPlane";
import { validateAllowedUses } from "../../../lib/pki/usages";
import { ConfigError } from "../../../lib/validation/errors";
import { FIXTURE_CRD_SOURCE } from "../../support/estate";
import { recordResources } from "../../support/mocks";
import { externalEtcdCredentials } from "../../../devkit/pki";

function attempt(cp: Partial<KarmadaControlPlaneArgs>, etcd: EtcdClusterArgs = {}) {
  const records = recordResources();
  const host = new k8s.Provider("host", { kubeconfig: "x", clusterIdentifier: "host" });
  let error: Error | undefined;
  try {
    const etcdCluster = new EtcdCluster("etcd", etcd, { provider: host });
    new KarmadaControlPlane(
      "karmada",
      { crds: FIXTURE_CRD_SOURCE, ...cp, etcd: etcdCluster },
      { provider: host },
    );
  } catch (e) {
    error = e as Error;
  }
  return { error, records };
}

const cases: [string, Partial<KarmadaControlPlaneArgs>, EtcdClusterArgs, RegExp][] = [
  [
    "unknown Karmada version",
    { karmadaVersion: "v1.2.3" },
    {},
    /invalid karmadaVersion: unknown Karmada version "v1.2.3" \(allowed: v1.18.2, v1.17.1, v1.16.0\)/,
  ],
  ["malformed SAN", { apiServer: { extraSans: ["bad_name!"] } }, {}, /invalid apiServer\.extraSans\[0\]/],
  ["malformed IP SAN", { apiServer: { extraSans: ["10.0.0.300"] } }, {}, /invalid apiServer\.extraSans\[0\]/],
  [
    "malformed CIDR",
    { apiServer: { serviceSubnet: "10.96.0.1/12" } },
    {},
    /invalid apiServer\.serviceSubnet/,
  ],
  [
    "malformed DNS name (external endpoint)",
    { apiServer: { externalEndpoint: "-bad-.example.com" } },
    {},
    /invalid apiServer\.externalEndpoint/,
  ],
  ["malformed namespace", { namespace: "Karmada_System" }, {}, /invalid namespace/],
  ["even etcd replicas", {}, { inCluster: { replicas: 2 } }, /invalid inCluster\.replicas.*allowed: 1, 3, 5/],
  [
    "hostPath with more than one replica",
    {},
    { inCluster: { replicas: 3, storage: { kind: "hostPath", path: "/var/lib/etcd" } } },
    /invalid inCluster\.storage/,
  ],
  [
    "duplicate SANs",
    { apiServer: { extraSans: ["a.example.com", "a.example.com"] } },
    {},
    /invalid apiServer\.extraSans.*duplicate|a\.example\.com/,
  ],
  [
    "unknown component name",
    { components: { schedular: {} } as any },
    {},
    /invalid components\.schedular: unknown component "schedular" \(allowed: apiServer, aggregatedApiServer/,
  ],
  ["malformed feature gates", { featureGates: { "not-a-gate": true } }, {}, /invalid featureGates/],
  [
    "malformed feature gate value",
    { components: { scheduler: { featureGates: { Failover: "yes" as any } } } },
    {},
    /invalid components\.scheduler\.featureGates/,
  ],
  [
    "malformed resource quantity",
    { components: { scheduler: { resources: { requests: { cpu: "lots" } } } } },
    {},
    /invalid components\.scheduler\.resources/,
  ],
  [
    "unknown service type",
    { apiServer: { serviceType: "Ingress" as any } },
    {},
    /allowed: ClusterIP, NodePort, LoadBalancer/,
  ],
  [
    "core component disabled",
    { components: { webhook: { enabled: false } } },
    {},
    /invalid components\.webhook\.enabled/,
  ],
  [
    "unknown etcd mode",
    {},
    { mode: "bare" as any },
    /invalid mode: unknown etcd mode "bare" \(allowed: inCluster, hosts, external\)/,
  ],
];

describe("validation before anything is applied", () => {
  it.each(cases)("%s", async (_what, cp, etcd, message) => {
    const { error, records } = attempt(cp, etcd);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toMatch(message);
    // nothing of the failing component reached the engine: neither a child nor the component itself
    const failing = Object.keys(etcd).length > 0 ? "EtcdCluster" : "KarmadaControlPlane";
    const ofFailing = records.filter(
      (r) => r.urn.includes(`${failing}$`) || r.type === `karmada:index:${failing}`,
    );
    expect(ofFailing.map((r) => r.name)).toEqual([]);
  });

  it("unknown allowed-use names are rejected (the tls provider would silently drop them)", () => {
    expect(() => validateAllowedUses("certificates[0].allowedUses", ["server_auth", "serverAuth"])).toThrow(
      /invalid certificates\[0\]\.allowedUses.*serverAuth.*allowed:.*server_auth/,
    );
  });

  it("a control plane without a host-cluster provider is refused", () => {
    recordResources();
    const etcd = new EtcdCluster("etcd", {
      mode: "external",
      external: {
        endpoints: ["https://10.0.0.1:2379"],
        ...externalEtcdCredentials(),
      },
    });
    expect(() => new KarmadaControlPlane("karmada", { etcd })).toThrow(
      /invalid opts\.provider: KarmadaControlPlane needs the host cluster's kubernetes provider/,
    );
  });
});
