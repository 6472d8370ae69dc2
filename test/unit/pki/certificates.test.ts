import { CORE_COMPONENTS, KarmadaComponent } from "../../../lib/catalog";
import {
  CA_IDS,
  CA_SPECS,
  CertSpec,
  controlPlaneCertificates,
  DEFAULT_LEAF_VALIDITY_HOURS,
  etcdCertificates,
  LEAF_BASE_USES,
} from "../../../lib/pki/certificates";
import { COMPONENT_PKI_FILES, KUBECONFIG_COMPONENTS, PkiFile } from "../../../lib/pki/layout";
import { apiServerSans, etcdServerSans, servingSans } from "../../../lib/pki/sans";
import { validateAllowedUses } from "../../../lib/pki/usages";
import { testSettings } from "../../support/settings";
import { configError } from "../validation/config-error";

const OPTIONAL_ON = {
  "karmada-search": { enabled: true },
  "karmada-metrics-adapter": { enabled: true },
  "karmada-descheduler": { enabled: true },
};
const coreOnly = controlPlaneCertificates(testSettings());
const everything = controlPlaneCertificates(
  testSettings({ namespace: "karmada-prod", components: OPTIONAL_ON }),
);
const byId = (specs: CertSpec[], id: string): CertSpec => {
  const spec = specs.find((s) => s.id === id);
  if (!spec) throw new Error(`no spec ${id}`);
  return spec;
};
const etcd = etcdCertificates({
  members: [{ name: "etcd-0", addresses: ["10.0.0.11"] }],
  inCluster: {
    namespace: "karmada-system",
    clusterDomain: "cluster.local",
    clientService: "etcd-client",
    headlessService: "etcd",
  },
});

describe("controlPlaneCertificates", () => {
  it.each([
    ["core only", coreOnly],
    ["all components", everything],
    ["etcd", etcd],
  ])("%s: unique ids and files, valid usages, base usages on every leaf", (_, specs) => {
    expect(new Set(specs.map((s) => s.id)).size).toBe(specs.length);
    const files = specs.flatMap((s) => [s.files.cert, s.files.key]);
    expect(new Set(files).size).toBe(files.length);
    for (const spec of specs) {
      validateAllowedUses(spec.id, spec.allowedUses);
      expect(spec.allowedUses).toEqual(expect.arrayContaining([...LEAF_BASE_USES]));
      expect(spec.files).toEqual({ cert: `${spec.id}.crt`, key: `${spec.id}.key` });
      expect(spec.organizations.length).toBeLessThanOrEqual(1);
    }
  });

  it("produces every file a component mounts, for every enabled component", () => {
    const issued = new Set<PkiFile>([
      ...everything.flatMap((s) => [s.files.cert, s.files.key]),
      ...CA_IDS.flatMap((id) => [CA_SPECS[id].files.cert, CA_SPECS[id].files.key]),
      "sa.key",
      "sa.pub",
    ]);
    const mounted = (Object.keys(COMPONENT_PKI_FILES) as KarmadaComponent[])
      .filter((c) => c !== "karmada-agent" && c !== "karmada-scheduler-estimator")
      .flatMap((c) => COMPONENT_PKI_FILES[c]);
    for (const file of mounted) expect(issued).toContain(file);
  });

  it("serving certificates are server-only and carry their Service SANs", () => {
    const settings = testSettings({ namespace: "karmada-prod", components: OPTIONAL_ON });
    const cases: [string, () => { dnsNames: readonly string[]; ipAddresses: readonly string[] }][] = [
      ["apiserver", () => apiServerSans(settings)],
      ["aggregated-apiserver", () => servingSans(settings, "karmada-aggregated-apiserver")],
      ["webhook", () => servingSans(settings, "karmada-webhook")],
      ["search", () => servingSans(settings, "karmada-search")],
      ["metrics-adapter", () => servingSans(settings, "karmada-metrics-adapter")],
    ];
    for (const [id, sans] of cases) {
      const spec = byId(everything, id);
      expect(spec.signer).toBe("karmada-ca");
      expect(spec.allowedUses).toContain("server_auth");
      expect(spec.allowedUses).not.toContain("client_auth");
      expect({ dnsNames: spec.dnsNames, ipAddresses: spec.ipAddresses }).toEqual(sans());
    }
  });

  it("client identities: admin, one per enabled component with a kubeconfig, front-proxy and etcd clients", () => {
    const admin = byId(coreOnly, "admin");
    expect([admin.commonName, admin.organizations]).toEqual(["system:admin", ["system:masters"]]);
    for (const specs of [coreOnly, everything]) {
      const enabled =
        specs === coreOnly ? CORE_COMPONENTS : [...CORE_COMPONENTS, ...Object.keys(OPTIONAL_ON)];
      const expected = KUBECONFIG_COMPONENTS.filter((c) => enabled.includes(c));
      const clients = specs.filter((s) => s.commonName.startsWith("system:karmada:"));
      expect(clients.map((s) => s.id)).toEqual(expected.map((c) => `${c}-client`));
      for (const [i, c] of expected.entries()) {
        expect(clients[i]).toMatchObject({
          commonName: `system:karmada:${c}`,
          organizations: ["system:masters"],
          signer: "karmada-ca",
        });
      }
    }
    expect(byId(coreOnly, "front-proxy-client").signer).toBe("front-proxy-ca");
    expect(byId(coreOnly, "etcd-client").signer).toBe("etcd-ca");
    for (const id of ["admin", "front-proxy-client", "etcd-client", "karmada-scheduler-client"]) {
      const spec = byId(coreOnly, id);
      expect(spec.allowedUses).toContain("client_auth");
      expect(spec.allowedUses).not.toContain("server_auth");
      expect([spec.dnsNames, spec.ipAddresses]).toEqual([[], []]);
    }
  });

  it("leaves out search and metrics-adapter certificates while they are disabled", () => {
    const ids = coreOnly.map((s) => s.id);
    for (const id of ["search", "metrics-adapter", "karmada-search-client", "karmada-descheduler-client"]) {
      expect(ids).not.toContain(id);
    }
  });

  it("uses 1-year leaves by default and the configured validity otherwise", () => {
    expect(new Set(coreOnly.map((s) => s.validityHours))).toEqual(new Set([DEFAULT_LEAF_VALIDITY_HOURS]));
    const short = controlPlaneCertificates(testSettings(), { leafValidityHours: 720 });
    expect(new Set(short.map((s) => s.validityHours))).toEqual(new Set([720]));
    expect(configError(() => controlPlaneCertificates(testSettings(), { leafValidityHours: 0 })).field).toBe(
      "leafValidityHours",
    );
  });

  it("passes SAN errors through with the setting's name", () => {
    const bad = testSettings({ apiServer: { extraSans: ["bad name"] } });
    expect(configError(() => controlPlaneCertificates(bad)).field).toBe("apiServer.extraSans[0]");
  });
});

describe("CA specs", () => {
  it("three CAs that may sign certificates and CRLs", () => {
    expect(CA_IDS).toEqual(["karmada-ca", "front-proxy-ca", "etcd-ca"]);
    for (const id of CA_IDS) {
      expect([...CA_SPECS[id].allowedUses].sort()).toEqual([
        "cert_signing",
        "crl_signing",
        "digital_signature",
      ]);
    }
    expect(CA_SPECS["karmada-ca"].files).toEqual({ cert: "ca.crt", key: "ca.key" });
  });
});

describe("etcdCertificates", () => {
  it("server and peer are server+client with the etcd SANs; the health-check client is client-only", () => {
    const sans = etcdServerSans({
      members: [{ name: "etcd-0", addresses: ["10.0.0.11"] }],
      inCluster: {
        namespace: "karmada-system",
        clusterDomain: "cluster.local",
        clientService: "etcd-client",
        headlessService: "etcd",
      },
    });
    expect(etcd.map((s) => s.id)).toEqual(["etcd-server", "etcd-peer", "etcd-healthcheck-client"]);
    for (const spec of etcd) expect(spec.signer).toBe("etcd-ca");
    for (const id of ["etcd-server", "etcd-peer"]) {
      const spec = byId(etcd, id);
      expect(spec.allowedUses).toEqual(expect.arrayContaining(["server_auth", "client_auth"]));
      expect({ dnsNames: spec.dnsNames, ipAddresses: spec.ipAddresses }).toEqual(sans);
    }
    expect(byId(etcd, "etcd-healthcheck-client").allowedUses).not.toContain("server_auth");
  });

  it("does not collide with the control plane's etcd client", () => {
    const ids = new Set(everything.map((s) => s.id));
    for (const spec of etcd) expect(ids.has(spec.id)).toBe(false);
  });
});
