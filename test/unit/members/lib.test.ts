import { parse } from "yaml";
import {
  BOOTSTRAP_TOKEN_PATTERN,
  bootstrapTokenSecretData,
  parseBootstrapToken,
  tokenExpiration,
  tokenKubeconfig,
} from "../../../lib/members/bootstrap";
import { clusterObject, clusterWithId } from "../../../lib/members/cluster";
import { resolveMemberSettings } from "../../../lib/members/resolve";
import { agentFlags } from "../../../lib/members/pull";
import { secretDataValue } from "../../../lib/members/credentials";
import { LEAST_PRIVILEGE_WRITABLE, memberAccessRules } from "../../../lib/members/rbac";
import { ConfigError } from "../../../lib/validation/errors";

describe("bootstrap tokens", () => {
  it("parses <id>.<secret> and never echoes the secret on error", () => {
    expect(parseBootstrapToken("abcdef.0123456789abcdef")).toEqual({
      id: "abcdef",
      secret: "0123456789abcdef",
    });
    let error: unknown;
    try {
      parseBootstrapToken("abcdef.SECRETSECRETSECRE");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain("SECRET");
    expect(BOOTSTRAP_TOKEN_PATTERN.test("abc.def")).toBe(false);
  });

  it("expires ttl hours later, in RFC 3339 without fractions, or never for ttl 0", () => {
    expect(tokenExpiration(Date.UTC(2026, 0, 1), 24)).toBe("2026-01-02T00:00:00Z");
    expect(tokenExpiration(Date.UTC(2026, 0, 1), 0)).toBeUndefined();
  });

  it("writes the Secret data karmadactl token create writes", () => {
    const data = bootstrapTokenSecretData(
      { id: "abcdef", secret: "0123456789abcdef" },
      { expiration: "2026-01-02T00:00:00Z" },
    );
    expect(data).toEqual({
      "token-id": "abcdef",
      "token-secret": "0123456789abcdef",
      "usage-bootstrap-authentication": "true",
      "usage-bootstrap-signing": "true",
      "auth-extra-groups": "system:bootstrappers:karmada:default-cluster-token",
      expiration: "2026-01-02T00:00:00Z",
    });
    const kubeconfig = parse(tokenKubeconfig("https://k:5443", "PEM", "abcdef.0123456789abcdef"));
    expect(kubeconfig.users[0].user).toEqual({ token: "abcdef.0123456789abcdef" });
    expect(
      Buffer.from(kubeconfig.clusters[0].cluster["certificate-authority-data"], "base64").toString(),
    ).toBe("PEM");
  });
});

describe("member roles", () => {
  it("leastPrivilege reads everything and writes only the listed kinds plus extra rules", () => {
    const rules = memberAccessRules("leastPrivilege", [
      { apiGroups: ["example.io"], resources: ["gadgets"], verbs: ["*"] },
    ]);
    expect(rules.some((r) => r.verbs.includes("*") && r.apiGroups?.includes("*"))).toBe(false);
    const writable = rules.filter((r) => r.verbs.includes("create")).flatMap((r) => r.resources ?? []);
    for (const { resources } of LEAST_PRIVILEGE_WRITABLE)
      expect(writable).toEqual(expect.arrayContaining([...resources]));
    expect(writable).not.toContain("clusterroles");
    expect(rules[rules.length - 1]).toEqual({
      apiGroups: ["example.io"],
      resources: ["gadgets"],
      verbs: ["*"],
    });
  });
});

describe("agent flags and Cluster object", () => {
  const pull = resolveMemberSettings({
    clusterName: "m",
    mode: "Pull",
    apiEndpoint: "https://m:6443",
    zones: ["z1", "z2"],
    proxyURL: "http://proxy:3128",
    pull: { extraArgs: { "cluster-status-update-frequency": "20s" } },
  });

  it("sorts flags, lets extraArgs win and turns off secret reporting only on request", () => {
    const flags = agentFlags(pull, "agents");
    expect(flags).toEqual([...flags].sort());
    expect(flags).toContain("--cluster-status-update-frequency=20s");
    expect(flags).toContain("--cluster-zones=z1,z2");
    expect(flags).toContain("--proxy-server-address=http://proxy:3128");
    expect(flags).toContain("--leader-elect-resource-namespace=agents");
    expect(flags.some((f) => f.startsWith("--report-secrets"))).toBe(false);
  });

  it("declares a pull Cluster with what karmada-agent writes, so the agent starts and never rewrites it", () => {
    // cmd/agent/app generateClusterInControllerPlane: syncMode, apiEndpoint, proxyURL, id, zones and the
    // references to the Secrets it reports (`<cluster>`, `<cluster>-impersonator` in karmada-cluster)
    expect(clusterWithId(clusterObject(pull), "uid-of-kube-system").spec).toEqual({
      syncMode: "Pull",
      apiEndpoint: "https://m:6443",
      id: "uid-of-kube-system",
      secretRef: { namespace: "karmada-cluster", name: "m" },
      impersonatorSecretRef: { namespace: "karmada-cluster", name: "m-impersonator" },
      proxyURL: "http://proxy:3128",
      zones: ["z1", "z2"],
    });
    // flags and Cluster agree on what the agent compares
    const flags = agentFlags(pull, "agents");
    expect(flags).toContain("--cluster-api-endpoint=https://m:6443");
    expect(flags).toContain("--cluster-namespace=karmada-cluster");
  });

  it("leaves the secret references out when the agent reports none, and never skips TLS verification", () => {
    const quiet = resolveMemberSettings({
      clusterName: "q",
      mode: "Pull",
      apiEndpoint: "https://q:6443",
      region: "r1",
      provider: "p1",
      taints: [{ key: "k", effect: "NoSchedule" }],
      pull: { reportSecrets: false },
    });
    expect(agentFlags(quiet, "agents")).toContain("--report-secrets=None");
    expect(clusterWithId(clusterObject(quiet), "uid").spec).toEqual({
      syncMode: "Pull",
      apiEndpoint: "https://q:6443",
      id: "uid",
      provider: "p1",
      region: "r1",
      // ours alone: the agent leaves taints as it finds them
      taints: [{ key: "k", value: "", effect: "NoSchedule" }],
    });
    expect(clusterObject(quiet).spec).not.toHaveProperty("id");
  });

  it("reads a token Secret's data and says what is missing", () => {
    expect(secretDataValue({ token: Buffer.from("t").toString("base64") }, "token", "s")).toBe("t");
    expect(() => secretDataValue({}, "token", "ns/s")).toThrow(/Secret ns\/s has no "token" yet/);
  });
});
