import * as fc from "fast-check";
import {
  apiServerSans,
  buildSanList,
  etcdServerSans,
  serviceDnsNames,
  servingSans,
} from "../../../lib/pki/sans";
import { formatIp, parseIp } from "../../../lib/validation/ip";
import { testSettings } from "../../support/settings";
import { configError } from "../validation/config-error";

/** The form SANs are compared in: IPs canonical. */
const canonical = (s: string): string => {
  const ip = parseIp(s);
  return ip ? formatIp(ip) : s;
};

const SERVING = [
  "karmada-aggregated-apiserver",
  "karmada-webhook",
  "karmada-search",
  "karmada-metrics-adapter",
] as const;

describe("apiServerSans", () => {
  it("covers loopback, the in-Karmada kubernetes Service, the host Service and namespace wildcards", () => {
    const sans = apiServerSans(testSettings({ namespace: "karmada-prod", clusterDomain: "corp.example" }));
    expect(sans.ipAddresses).toEqual(["127.0.0.1", "10.96.0.1"]);
    expect(sans.dnsNames).toEqual([
      "localhost",
      "kubernetes",
      "kubernetes.default",
      "kubernetes.default.svc",
      "karmada-apiserver",
      "karmada-apiserver.karmada-prod",
      "karmada-apiserver.karmada-prod.svc",
      "karmada-apiserver.karmada-prod.svc.corp.example",
      "*.karmada-prod.svc",
      "*.karmada-prod.svc.corp.example",
    ]);
  });

  it("adds extra SANs and the external endpoint, split by kind, canonical and without repeats", () => {
    const settings = testSettings({
      apiServer: {
        serviceSubnet: "fd00:10:96::/112",
        extraSans: [
          "karmada.example.com",
          "203.0.113.10",
          "localhost",
          "0:0:0:0:0:0:0:1",
          "*.karmada.example.com",
        ],
        externalEndpoint: { host: "2001:DB8::10", port: 443 },
      },
    });
    const sans = apiServerSans(settings);
    expect(sans.ipAddresses).toEqual(["127.0.0.1", "fd00:10:96::1", "203.0.113.10", "::1", "2001:db8::10"]);
    expect(sans.dnsNames.slice(-2)).toEqual(["karmada.example.com", "*.karmada.example.com"]);
    expect(sans.dnsNames.filter((n) => n === "localhost")).toHaveLength(1);
  });

  it("a DNS external endpoint lands in dnsNames", () => {
    const sans = apiServerSans(
      testSettings({ apiServer: { externalEndpoint: { host: "karmada.example.com", port: 5443 } } }),
    );
    expect(sans.dnsNames).toContain("karmada.example.com");
  });

  it("contains every valid extra SAN exactly once, whatever the list", () => {
    const san = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.domain().map((d) => d.toLowerCase()),
    );
    fc.assert(
      fc.property(fc.uniqueArray(san, { maxLength: 8, selector: canonical }), (extraSans) => {
        const sans = apiServerSans(testSettings({ apiServer: { extraSans } }));
        const all = [...sans.dnsNames, ...sans.ipAddresses];
        expect(new Set(all).size).toBe(all.length);
        for (const s of extraSans) {
          const ip = parseIp(s);
          if (ip) expect(sans.ipAddresses).toContain(formatIp(ip));
          else expect(sans.dnsNames).toContain(s);
        }
        expect(apiServerSans(testSettings({ apiServer: { extraSans } }))).toEqual(sans); // deterministic
      }),
    );
  });

  it("names the offending setting", () => {
    const bad = (apiServer: object) => configError(() => apiServerSans(testSettings({ apiServer })));
    expect(bad({ extraSans: ["ok.example.com", "not a name"] }).field).toBe("apiServer.extraSans[1]");
    const typo = bad({ extraSans: ["10.0.0.1", "10.0.0.01"] });
    expect(typo.field).toBe("apiServer.extraSans[1]");
    expect(typo.problem).toBe('"10.0.0.01" is neither an IP address nor a DNS name');
    expect(bad({ extraSans: ["::1", "0::1"] }).problem).toBe(
      'duplicate "0::1" (already at apiServer.extraSans[0])',
    );
    expect(bad({ serviceSubnet: "10.96.0.1/12" }).field).toBe("apiServer.serviceSubnet");
    expect(bad({ externalEndpoint: { host: "Karmada.Example", port: 443 } }).field).toBe(
      "apiServer.externalEndpoint.host",
    );
    expect(configError(() => apiServerSans(testSettings({ namespace: "Karmada" }))).field).toBe("namespace");
    expect(configError(() => apiServerSans(testSettings({ clusterDomain: "cluster..local" }))).field).toBe(
      "clusterDomain",
    );
  });
});

describe("servingSans", () => {
  it.each(SERVING)("%s: Service names in the host namespace and in karmada-system", (component) => {
    const sans = servingSans(testSettings({ namespace: "karmada-prod" }), component);
    expect(sans.ipAddresses).toEqual([]);
    expect(sans.dnsNames).toEqual([
      ...serviceDnsNames(component, "karmada-prod", "cluster.local"),
      `${component}.karmada-system`,
      `${component}.karmada-system.svc`,
      `${component}.karmada-system.svc.cluster.local`,
    ]);
  });

  it("does not repeat names when the host namespace is karmada-system", () => {
    const sans = servingSans(testSettings({ namespace: "karmada-system" }), "karmada-webhook");
    expect(sans.dnsNames).toEqual(serviceDnsNames("karmada-webhook", "karmada-system", "cluster.local"));
  });
});

describe("etcdServerSans", () => {
  const members = [
    { name: "etcd-0", addresses: ["10.0.0.11", "node-a.example.com"] },
    { name: "etcd-1", addresses: ["10.0.0.12"] },
  ];

  it("in-cluster: loopback, client Service names, headless wildcard, member addresses, extras", () => {
    const sans = etcdServerSans({
      members,
      inCluster: {
        namespace: "karmada-system",
        clusterDomain: "cluster.local",
        clientService: "etcd-client",
        headlessService: "etcd",
      },
      extraSans: ["etcd.example.com", "10.0.0.11"],
    });
    expect(sans.ipAddresses).toEqual(["127.0.0.1", "10.0.0.11", "10.0.0.12"]);
    expect(sans.dnsNames).toEqual([
      "localhost",
      ...serviceDnsNames("etcd-client", "karmada-system", "cluster.local"),
      "*.etcd.karmada-system.svc",
      "*.etcd.karmada-system.svc.cluster.local",
      "node-a.example.com",
      "etcd.example.com",
    ]);
  });

  it("hosts mode: no Service names", () => {
    const sans = etcdServerSans({ members });
    expect(sans.dnsNames).toEqual(["localhost", "node-a.example.com"]);
  });

  it("rejects bad and duplicate member names and bad addresses, naming them", () => {
    expect(
      configError(() => etcdServerSans({ members: [...members, { name: "etcd-0", addresses: [] }] })).field,
    ).toBe("members[2]");
    expect(configError(() => etcdServerSans({ members: [{ name: "Etcd_0", addresses: [] }] })).field).toBe(
      "members[0].name",
    );
    expect(
      configError(() => etcdServerSans({ members: [{ name: "e", addresses: ["10.0.0.1", "10.0.0.300"] }] }))
        .field,
    ).toBe("members[0].addresses[1]");
    expect(
      configError(() =>
        etcdServerSans({
          members,
          inCluster: {
            namespace: "ns",
            clusterDomain: "cluster.local",
            clientService: "etcd.client",
            headlessService: "etcd",
          },
        }),
      ).field,
    ).toBe("inCluster.clientService");
  });
});

describe("buildSanList", () => {
  it("keeps first-appearance order and drops repeats across sources", () => {
    const sans = buildSanList([
      { field: "a", value: "b.example" },
      { field: "a", value: "::1" },
      { field: "b", value: "0:0::1" },
      { field: "b", value: "a.example" },
      { field: "b", value: "b.example" },
    ]);
    expect(sans).toEqual({ dnsNames: ["b.example", "a.example"], ipAddresses: ["::1"] });
  });
});
