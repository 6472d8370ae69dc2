import { stringify } from "yaml";
import { apiAccessFromKubeconfig } from "../../../lib/kubeconfig/access";
import { renderKubeconfig } from "../../../lib/kubeconfig/render";

const PEM = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
const CA = PEM("CERTIFICATE", "Y2E=");
const CERT = PEM("CERTIFICATE", "Y2VydA==");
const KEY = PEM("PRIVATE KEY", "c2VjcmV0LWtleQ==");
const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("apiAccessFromKubeconfig (what the pull member's drain calls karmada-apiserver with)", () => {
  it("reads back what renderKubeconfig wrote: server, CA, client certificate and key", () => {
    const text = renderKubeconfig({
      server: "https://127.0.6.100:5443",
      caPem: CA,
      certPem: CERT,
      keyPem: KEY,
      clusterName: "karmada-apiserver",
      userName: "karmada-admin",
      contextName: "karmada-apiserver",
    });
    expect(apiAccessFromKubeconfig(text)).toEqual({
      server: "https://127.0.6.100:5443",
      caPem: CA,
      certPem: CERT,
      keyPem: KEY,
    });
  });

  it("follows current-context among several entries, and takes a bearer token", () => {
    const text = stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "other",
          cluster: { server: "https://10.0.0.1:6443", "certificate-authority-data": b64("x") },
        },
        {
          name: "karmada",
          cluster: { server: "https://10.0.0.2:5443", "certificate-authority-data": b64(CA) },
        },
      ],
      users: [
        { name: "other", user: { "client-certificate-data": b64(CERT), "client-key-data": b64(KEY) } },
        { name: "robot", user: { token: "abc.def" } },
      ],
      contexts: [
        { name: "a", context: { cluster: "other", user: "other" } },
        { name: "b", context: { cluster: "karmada", user: "robot" } },
      ],
      "current-context": "b",
    });
    expect(apiAccessFromKubeconfig(text)).toEqual({
      server: "https://10.0.0.2:5443",
      caPem: CA,
      token: "abc.def",
    });
  });

  it("names what is missing, and never the key it did find", () => {
    const base = {
      clusters: [{ name: "c", cluster: { server: "https://h:1", "certificate-authority-data": b64(CA) } }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    };
    const onlyKey = stringify({ ...base, users: [{ name: "u", user: { "client-key-data": b64(KEY) } }] });
    expect(() => apiAccessFromKubeconfig(onlyKey)).toThrow(
      "kubeconfig: the user entry has neither client-certificate-data with client-key-data nor a token",
    );
    try {
      apiAccessFromKubeconfig(onlyKey);
    } catch (e) {
      expect((e as Error).message).not.toContain("c2VjcmV0");
      expect((e as Error).message).not.toContain(b64(KEY));
    }
    expect(() => apiAccessFromKubeconfig(stringify({ ...base, "current-context": "y", users: [] }))).toThrow(
      "kubeconfig: no context entry y",
    );
    expect(() =>
      apiAccessFromKubeconfig(
        stringify({ ...base, clusters: [{ name: "c", cluster: { server: "https://h:1" } }], users: [] }),
      ),
    ).toThrow("kubeconfig: the cluster entry has no certificate-authority-data");
  });
});
