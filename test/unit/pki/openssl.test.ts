import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CA_IDS,
  CA_SPECS,
  CaId,
  CertSpec,
  controlPlaneCertificates,
  DEFAULT_CA_VALIDITY_HOURS,
  etcdCertificates,
} from "../../../lib/pki/certificates";
import { testSettings } from "../../support/settings";
import {
  createCa,
  extendedKeyUsageOidsOf,
  issueLeaf,
  IssuedFiles,
  keyUsagesOf,
  opensslVerify,
  readKeyUsages,
} from "./openssl";

jest.setTimeout(180_000);

const settings = testSettings({
  namespace: "karmada-prod",
  clusterDomain: "corp.example",
  components: { "karmada-search": { enabled: true }, "karmada-metrics-adapter": { enabled: true } },
  apiServer: {
    extraSans: ["karmada.example.com", "203.0.113.10"],
    externalEndpoint: { host: "2001:db8::10", port: 443 },
  },
});
const LEAVES: CertSpec[] = [
  ...controlPlaneCertificates(settings),
  ...etcdCertificates({
    members: [
      { name: "etcd-0", addresses: ["10.0.0.11"] },
      { name: "etcd-1", addresses: ["node-b.example.com"] },
    ],
    inCluster: {
      namespace: "karmada-prod",
      clusterDomain: "corp.example",
      clientService: "etcd-client",
      headlessService: "etcd",
    },
  }),
];

let dir: string;
const cas = {} as Record<CaId, IssuedFiles & { x509: X509Certificate }>;
const leaves = new Map<string, IssuedFiles & { x509: X509Certificate }>();
const load = (files: IssuedFiles) => ({ ...files, x509: new X509Certificate(readFileSync(files.cert)) });
const leaf = (id: string) => leaves.get(id)!;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "karmada-pki-"));
  for (const id of CA_IDS) cas[id] = load(createCa(dir, CA_SPECS[id], DEFAULT_CA_VALIDITY_HOURS));
  for (const spec of LEAVES) leaves.set(spec.id, load(issueLeaf(dir, spec, cas[spec.signer])));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("CAs issued from CA_SPECS", () => {
  it.each(CA_IDS)("%s is a self-signed CA with the spec's key usages", (id) => {
    const ca = cas[id];
    expect(ca.x509.ca).toBe(true);
    expect(ca.x509.verify(ca.x509.publicKey)).toBe(true);
    expect(ca.x509.subject).toBe(`CN=${CA_SPECS[id].commonName}`);
    expect(readKeyUsages(ca.cert).sort()).toEqual(keyUsagesOf(CA_SPECS[id].allowedUses).sort());
    expect(opensslVerify(ca.cert, ca.cert).ok).toBe(true);
  });

  it("are three distinct keys", () => {
    expect(new Set(CA_IDS.map((id) => cas[id].x509.fingerprint256)).size).toBe(3);
  });
});

describe.each(LEAVES.map((spec) => [spec.id, spec] as const))("leaf %s", (_, spec) => {
  const serves = spec.allowedUses.includes("server_auth");
  const authenticates = spec.allowedUses.includes("client_auth");

  it("is signed by its signer and by no other CA", () => {
    const { x509 } = leaf(spec.id);
    expect(x509.ca).toBe(false);
    for (const id of CA_IDS) {
      expect([id, x509.verify(cas[id].x509.publicKey)]).toEqual([id, id === spec.signer]);
      expect([id, x509.checkIssued(cas[id].x509)]).toEqual([id, id === spec.signer]);
    }
  });

  it("chains to its CA in openssl and only to it", () => {
    for (const id of CA_IDS) {
      const result = opensslVerify(leaf(spec.id).cert, cas[id].cert);
      expect([id, result.ok]).toEqual([id, id === spec.signer]);
    }
  });

  it(`${serves ? "passes" : "fails"} -purpose sslserver and ${authenticates ? "passes" : "fails"} -purpose sslclient`, () => {
    const ca = cas[spec.signer].cert;
    const server = opensslVerify(leaf(spec.id).cert, ca, "sslserver");
    const client = opensslVerify(leaf(spec.id).cert, ca, "sslclient");
    expect(server.ok).toBe(serves);
    expect(client.ok).toBe(authenticates);
    if (!serves) expect(server.output).toContain("unsuitable certificate purpose");
    if (!authenticates) expect(client.output).toContain("unsuitable certificate purpose");
  });

  it("carries the spec's subject, key usages and extended key usages", () => {
    const { x509, cert } = leaf(spec.id);
    const subject = x509.subject.split("\n");
    expect(subject).toContain(`CN=${spec.commonName}`);
    for (const o of spec.organizations) expect(subject).toContain(`O=${o}`);
    expect(readKeyUsages(cert).sort()).toEqual(keyUsagesOf(spec.allowedUses).sort());
    expect([...(x509.keyUsage ?? [])].sort()).toEqual(extendedKeyUsageOidsOf(spec.allowedUses).sort());
  });

  it("is valid for every SAN in the spec", () => {
    const { x509 } = leaf(spec.id);
    for (const name of spec.dnsNames) {
      const host = name.startsWith("*.") ? `member-0${name.slice(1)}` : name;
      expect([host, x509.checkHost(host)]).toEqual([host, name]);
    }
    for (const ip of spec.ipAddresses) expect(x509.checkIP(ip)).toBe(ip);
    if (spec.dnsNames.length + spec.ipAddresses.length === 0) expect(x509.subjectAltName).toBeUndefined();
  });
});

describe("names clients actually dial", () => {
  it("karmada-apiserver: in-cluster names, kubernetes Service IP, external endpoint; not other namespaces", () => {
    const { x509 } = leaf("apiserver");
    for (const host of [
      "karmada-apiserver.karmada-prod.svc.corp.example",
      "kubernetes.default.svc",
      "localhost",
      "karmada.example.com",
    ]) {
      expect([host, x509.checkHost(host)]).toEqual([host, expect.any(String)]);
    }
    for (const ip of ["10.96.0.1", "127.0.0.1", "2001:db8::10", "203.0.113.10"])
      expect(x509.checkIP(ip)).toBe(ip);
    expect(x509.checkHost("karmada-apiserver.other.svc")).toBeUndefined();
    expect(x509.checkIP("10.96.0.2")).toBeUndefined();
  });

  it("aggregated APIs and webhook: the karmada-system ExternalName Service names", () => {
    for (const [id, service] of [
      ["aggregated-apiserver", "karmada-aggregated-apiserver"],
      ["webhook", "karmada-webhook"],
      ["search", "karmada-search"],
      ["metrics-adapter", "karmada-metrics-adapter"],
    ]) {
      expect(leaf(id).x509.checkHost(`${service}.karmada-system.svc`)).toBe(`${service}.karmada-system.svc`);
      expect(leaf(id).x509.checkHost(`${service}.karmada-prod.svc`)).toBe(`${service}.karmada-prod.svc`);
    }
  });

  it("etcd: client Service, every member through the headless wildcard, member addresses", () => {
    const { x509 } = leaf("etcd-server");
    expect(x509.checkHost("etcd-client.karmada-prod.svc.corp.example")).toBeDefined();
    expect(x509.checkHost("etcd-2.etcd.karmada-prod.svc")).toBe("*.etcd.karmada-prod.svc");
    expect(x509.checkHost("node-b.example.com")).toBe("node-b.example.com");
    expect(x509.checkIP("10.0.0.11")).toBe("10.0.0.11");
  });
});

describe("trust separation", () => {
  it("etcd leaves do not chain to the Karmada CA", () => {
    for (const id of ["etcd-server", "etcd-peer", "etcd-client", "etcd-healthcheck-client"]) {
      const result = opensslVerify(leaf(id).cert, cas["karmada-ca"].cert);
      expect([id, result.ok]).toEqual([id, false]);
      expect(result.output).toContain("unable to get local issuer certificate");
    }
  });

  it("the front-proxy client is not a Karmada client identity", () => {
    expect(opensslVerify(leaf("front-proxy-client").cert, cas["karmada-ca"].cert, "sslclient").ok).toBe(
      false,
    );
    expect(opensslVerify(leaf("front-proxy-client").cert, cas["front-proxy-ca"].cert, "sslclient").ok).toBe(
      true,
    );
  });

  it("serving certificates cannot be used as client identities", () => {
    for (const id of ["apiserver", "aggregated-apiserver", "webhook"]) {
      expect([id, opensslVerify(leaf(id).cert, cas["karmada-ca"].cert, "sslclient").ok]).toEqual([id, false]);
    }
  });
});
