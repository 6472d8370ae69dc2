import * as k8s from "@pulumi/kubernetes";
import { MemberRegistration } from "../../../components/memberRegistration";
import { validateMemberConfig } from "../../../lib/members/validate";
import { ConfigError } from "../../../lib/validation/errors";
import { buildEstate, Estate } from "../../support/estate";
import { memberProvider, MemberSpec } from "./estate";
import { simulateControllers } from "./simulate";

const base: MemberSpec = { clusterName: "ok", mode: "Push", apiEndpoint: "https://ok.example.com:6443" };

/** The ConfigError `fn` throws. */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("no error thrown");
}

describe("member config validation", () => {
  const cases: [string, Partial<MemberSpec>, string, RegExp][] = [
    [
      "upper-case name",
      { clusterName: "Edge" },
      "clusterName",
      /"Edge" is not a usable cluster name.*48 characters/,
    ],
    ["49-character name", { clusterName: "a".repeat(49) }, "clusterName", /not a usable cluster name/],
    ["unknown mode", { mode: "Push2" as never }, "mode", /unknown sync mode "Push2" \(allowed: Push, Pull\)/],
    ["http endpoint", { apiEndpoint: "http://ok.example.com" }, "apiEndpoint", /does not use https/],
    ["bad region", { region: "eu west" }, "region", /not a valid label value/],
    ["duplicate zone", { zones: ["z1", "z1"] }, "zones[1]", /duplicate "z1"/],
    [
      "taint effect",
      { taints: [{ key: "k", effect: "PreferNoSchedule" as never }] },
      "taints[0].effect",
      /unsupported effect "PreferNoSchedule" \(allowed: NoSchedule, NoExecute\)/,
    ],
    ["taint key", { taints: [{ key: "bad key", effect: "NoSchedule" }] }, "taints[0].key", /not a valid key/],
    [
      "duplicate taint",
      {
        taints: [
          { key: "k", effect: "NoSchedule" },
          { key: "k", value: "v", effect: "NoSchedule" },
        ],
      },
      "taints[1]",
      /duplicate/,
    ],
    ["proxy scheme", { proxyURL: "ftp://proxy:21" }, "proxyURL", /unsupported scheme.*socks5/],
    [
      "permissions",
      { permissions: "admin" as never },
      "permissions",
      /unknown permission set "admin" \(allowed: full, leastPrivilege\)/,
    ],
    [
      "extraRules with full",
      { extraRules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] },
      "extraRules",
      /leastPrivilege/,
    ],
    [
      "rule without verbs",
      { permissions: "leastPrivilege", extraRules: [{ apiGroups: [""], resources: ["pods"], verbs: [] }] },
      "extraRules[0].verbs",
      /no verb/,
    ],
    [
      "a rule for both API groups and URLs (the API server refuses the ClusterRole)",
      {
        permissions: "leastPrivilege",
        extraRules: [{ apiGroups: [""], nonResourceURLs: ["/healthz"], verbs: ["get"] }],
      },
      "extraRules[0]",
      /both non-resource URLs and API groups/,
    ],
    [
      "a rule list given as a string",
      {
        permissions: "leastPrivilege",
        extraRules: [{ apiGroups: "MKFG" as never, resources: ["pods"], verbs: ["get"] }],
      },
      "extraRules[0].apiGroups",
      /is not a list of strings/,
    ],
    ["taints given as a string", { taints: "" as never }, "taints", /is not a list/],
    // found by the config property test (seed 1424245407): the duplicate check read `null.key`
    ["a taint that is null", { taints: [null as never] }, "taints[0]", /is not a taint/],
    [
      "an unknown key in an RBAC rule (it would reach the ClusterRole)",
      {
        permissions: "leastPrivilege",
        extraRules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"], extra: ["x"] } as never],
      },
      "extraRules[0].extra",
      /is not a field of an RBAC rule/,
    ],
    [
      "an agent certificate longer than a CSR can ask for (int32 seconds)",
      { mode: "Pull", pull: { certValidityHours: 596524 } },
      "pull.certValidityHours",
      /out of range/,
    ],
    [
      "a bootstrap token lifetime beyond any date",
      { mode: "Pull", pull: { bootstrapTokenTtlHours: 3e12 } },
      "pull.bootstrapTokenTtlHours",
      /out of range/,
    ],
    [
      "agent replicas beyond int32",
      { mode: "Pull", pull: { replicas: 2 ** 31 } },
      "pull.replicas",
      /out of range/,
    ],
    ["pull options in push mode", { pull: { replicas: 2 } }, "pull", /mode is "Push"/],
    ["agent replicas", { mode: "Pull", pull: { replicas: 0 } }, "pull.replicas", /out of range/],
    [
      "agent identity",
      { mode: "Pull", pull: { identity: "csr" as never } },
      "pull.identity",
      /direct, bootstrapToken/,
    ],
    [
      "fixed agent flag",
      { mode: "Pull", pull: { extraArgs: { "cluster-name": "x" } } },
      'pull.extraArgs["cluster-name"]',
      /--cluster-name is set by the registration from clusterName/,
    ],
    // the agent writes these into the Cluster and may not update the declared one
    ...[
      "cluster-api-endpoint",
      "cluster-provider",
      "cluster-region",
      "cluster-zones",
      "proxy-server-address",
      "cluster-namespace",
      "report-secrets",
    ].map((flag): [string, Partial<MemberSpec>, string, RegExp] => [
      `agent flag ${flag}, which lands in the Cluster`,
      { mode: "Pull", pull: { extraArgs: { [flag]: "x" } } },
      `pull.extraArgs["${flag}"]`,
      /set by the registration/,
    ]),
    [
      "insecureSkipTLSVerification in pull mode",
      { mode: "Pull", insecureSkipTLSVerification: true },
      "insecureSkipTLSVerification",
      /only applies to push mode/,
    ],
    ["agent namespace", { mode: "Pull", pull: { namespace: "Karmada" } }, "pull.namespace", /DNS-1123 label/],
    [
      "the agent in the namespace of the credentials it reports (both would create it)",
      { mode: "Pull", pull: { namespace: "karmada-cluster" } },
      "pull.namespace",
      /"karmada-cluster" is where the agent's reported credentials live.*\(allowed: a namespace of the agent's own \(default "karmada-system"\), or reportSecrets: false\)/,
    ],
    [
      "credentials namespace",
      { credentialsNamespace: "Karmada_Cluster" },
      "credentialsNamespace",
      /DNS-1123 label/,
    ],
    [
      "credentialsNamespace in pull mode",
      { mode: "Pull", credentialsNamespace: "karmada-cluster-a" },
      "credentialsNamespace",
      /only applies to push mode.*\(allowed: mode: "Push"\)/,
    ],
    ["generation", { credentialGeneration: -1 }, "credentialGeneration", /out of range/],
    ["protect that is not a boolean", { protect: "yes" as never }, "protect", /"yes" is not a boolean/],
  ];
  it.each(cases)("rejects %s", (_, patch, field, message) => {
    const error = configError(() => validateMemberConfig({ ...base, ...patch }));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it("accepts a full, valid registration", () => {
    expect(() =>
      validateMemberConfig({
        ...base,
        mode: "Pull",
        zones: ["a", "b"],
        taints: [{ key: "example.com/x", value: "y", effect: "NoExecute" }],
        permissions: "leastPrivilege",
        extraRules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
        pull: { identity: "bootstrapToken", extraArgs: { "kube-api-qps": "50" }, namespace: "karmada-agent" },
      }),
    ).not.toThrow();
  });
});

describe("MemberRegistration construction errors", () => {
  let estate: Estate;
  beforeAll(async () => {
    estate = await buildEstate();
    simulateControllers();
  });

  it("refuses a second registration of the same cluster name", () => {
    new MemberRegistration(
      "first",
      { ...base, clusterName: "twice", controlPlane: estate.controlPlane },
      { provider: memberProvider("t1") },
    );
    const error = configError(
      () =>
        new MemberRegistration(
          "second",
          { ...base, clusterName: "twice", controlPlane: estate.controlPlane },
          { provider: memberProvider("t2") },
        ),
    );
    expect(error.field).toBe("clusterName");
    expect(error.message).toMatch(/"twice" is already registered with "karmada" by "first"/);
  });

  it("refuses two registrations keeping credentials in one namespace of one member API server, by endpoint or by provider", () => {
    const shared = {
      ...base,
      apiEndpoint: "https://shared.example.com:6443",
      controlPlane: estate.controlPlane,
    };
    new MemberRegistration("s1", { ...shared, clusterName: "s1" }, { provider: memberProvider("s1") });
    const byEndpoint = configError(
      () =>
        new MemberRegistration("s2", { ...shared, clusterName: "s2" }, { provider: memberProvider("s2") }),
    );
    expect(byEndpoint.field).toBe("credentialsNamespace");
    expect(byEndpoint.message).toMatch(
      /"karmada-cluster" of member "https:\/\/shared.example.com:6443" already holds the credentials of "s1".*\(allowed: a namespace of its own on that server, e.g. "karmada-cluster-s2"/,
    );
    const provider = memberProvider("p1");
    new MemberRegistration(
      "p1",
      {
        ...base,
        clusterName: "p1",
        apiEndpoint: "https://p1.example.com:6443",
        controlPlane: estate.controlPlane,
      },
      { provider },
    );
    const byProvider = configError(
      () =>
        new MemberRegistration(
          "p2",
          {
            ...base,
            clusterName: "p2",
            apiEndpoint: "https://p1-alias.example.com:6443",
            controlPlane: estate.controlPlane,
          },
          { provider },
        ),
    );
    expect(byProvider.field).toBe("credentialsNamespace");
    // a namespace of its own on the same server is accepted, by endpoint and by provider
    expect(
      () =>
        new MemberRegistration(
          "s3",
          { ...shared, clusterName: "s3", credentialsNamespace: "karmada-cluster-s3" },
          { provider },
        ),
    ).not.toThrow();
  });

  it("needs the member's provider, and not the Karmada one", () => {
    expect(
      configError(
        () => new MemberRegistration("np", { ...base, clusterName: "np", controlPlane: estate.controlPlane }),
      ).field,
    ).toBe("opts.provider");
    const error = configError(
      () =>
        new MemberRegistration(
          "kp",
          { ...base, clusterName: "kp", controlPlane: estate.controlPlane },
          { provider: estate.controlPlane.karmadaProvider },
        ),
    );
    expect(error.message).toMatch(/is the Karmada provider/);
  });

  it("refuses caBundle in pull mode", () => {
    const error = configError(
      () =>
        new MemberRegistration(
          "cb",
          { ...base, clusterName: "cb", mode: "Pull", caBundle: "pem", controlPlane: estate.controlPlane },
          { provider: memberProvider("cb") },
        ),
    );
    expect(error.field).toBe("caBundle");
  });

  it("refuses direct agent identities when the control plane holds no CA key", () => {
    // the same control plane as seen when its CA was supplied without the key
    const keyless = Object.create(estate.controlPlane, { caKeyPem: { value: undefined } });
    const error = configError(
      () =>
        new MemberRegistration(
          "nokey",
          { ...base, clusterName: "nokey", mode: "Pull", controlPlane: keyless },
          {
            provider: new k8s.Provider("member-nokey", { kubeconfig: "x" }),
          },
        ),
    );
    expect(error.field).toBe("pull.identity");
    expect(error.message).toMatch(/needs the Karmada CA key.*"bootstrapToken"/);
  });
});
