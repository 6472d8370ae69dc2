import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { CA_SPECS, CertSpec } from "../../../lib/pki/certificates";
import { KubeconfigParams, renderKubeconfig } from "../../../lib/kubeconfig/render";
import { createCa, issueLeaf } from "../pki/openssl";
import { configError } from "../validation/config-error";

jest.setTimeout(60_000);

const ADMIN: CertSpec = {
  id: "admin",
  commonName: "system:admin",
  organizations: ["system:masters"],
  signer: "karmada-ca",
  allowedUses: ["digital_signature", "key_encipherment", "client_auth"],
  dnsNames: [],
  ipAddresses: [],
  validityHours: 24,
  files: { cert: "admin.crt", key: "admin.key" },
};

let dir: string;
let params: KubeconfigParams;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "karmada-kubeconfig-"));
  const ca = createCa(dir, CA_SPECS["karmada-ca"], 48);
  const admin = issueLeaf(dir, ADMIN, ca);
  params = {
    server: "https://karmada-apiserver.karmada-system.svc.cluster.local:5443",
    caPem: readFileSync(ca.cert, "utf8"),
    certPem: readFileSync(admin.cert, "utf8"),
    keyPem: readFileSync(admin.key, "utf8"),
    clusterName: "karmada-apiserver",
    userName: "karmada-admin",
    contextName: "karmada",
  };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const decode = (data: string): string => Buffer.from(data, "base64").toString("utf8");

describe("renderKubeconfig", () => {
  it("renders one cluster, user and context, wired together and current", () => {
    const config = parse(renderKubeconfig(params));
    expect(config).toMatchObject({ apiVersion: "v1", kind: "Config", "current-context": "karmada" });
    expect(config.clusters).toEqual([
      { name: "karmada-apiserver", cluster: expect.objectContaining({ server: params.server }) },
    ]);
    expect(config.users.map((u: { name: string }) => u.name)).toEqual(["karmada-admin"]);
    expect(config.contexts).toEqual([
      { name: "karmada", context: { cluster: "karmada-apiserver", user: "karmada-admin" } },
    ]);
  });

  it("embeds the PEMs base64-encoded, and they form a working identity", () => {
    const config = parse(renderKubeconfig(params));
    const ca = decode(config.clusters[0].cluster["certificate-authority-data"]);
    const cert = decode(config.users[0].user["client-certificate-data"]);
    const key = decode(config.users[0].user["client-key-data"]);
    expect([ca, cert, key]).toEqual([params.caPem, params.certPem, params.keyPem]);
    const client = new X509Certificate(cert);
    expect(client.verify(new X509Certificate(ca).publicKey)).toBe(true);
    expect(client.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(client.subject.split("\n")).toEqual(
      expect.arrayContaining(["CN=system:admin", "O=system:masters"]),
    );
  });

  it("rejects a non-https server and unusable names, naming the field", () => {
    expect(configError(() => renderKubeconfig({ ...params, server: "http://karmada:5443" })).field).toBe(
      "server",
    );
    expect(configError(() => renderKubeconfig({ ...params, clusterName: "" })).field).toBe("clusterName");
    expect(configError(() => renderKubeconfig({ ...params, userName: " admin" })).field).toBe("userName");
    expect(configError(() => renderKubeconfig({ ...params, contextName: "  " })).field).toBe("contextName");
  });

  it("rejects swapped PEMs without echoing key material", () => {
    const swapped = configError(() => renderKubeconfig({ ...params, certPem: params.keyPem }));
    expect(swapped.field).toBe("certPem");
    const body = params.keyPem.split("\n")[1];
    expect(swapped.message).not.toContain(body);
    expect(swapped.message).toContain("-----BEGIN PRIVATE KEY-----");
    expect(configError(() => renderKubeconfig({ ...params, keyPem: params.certPem })).field).toBe("keyPem");
    expect(configError(() => renderKubeconfig({ ...params, caPem: "" })).field).toBe("caPem");
  });
});
