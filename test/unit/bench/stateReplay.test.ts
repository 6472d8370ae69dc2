import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import {
  ExportedDeployment,
  isDefaultProvider,
  requestsOfDeployment,
  stackOutputsOfDeployment,
  wireSecrets,
} from "../../../bench/support/stateReplay";

const STACK = "urn:pulumi:dev::karmada-estate::pulumi:pulumi:Stack::karmada-estate-dev";
const urn = (type: string, name: string, parentType = "") =>
  `urn:pulumi:dev::karmada-estate::${parentType ? `${parentType}$` : ""}${type}::${name}`;
/** How `pulumi stack export --show-secrets` writes a secret: its value JSON-encoded. */
const exportedSecret = (value: unknown) => ({
  [specialSigKey]: "1b47061264138c4ac30d75fd1eb44270",
  plaintext: JSON.stringify(value),
});
const wireSecret = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });

const COMPONENT = urn("karmada:index:KarmadaControlPlane", "karmada");
const TLS_DEFAULT = `${urn("pulumi:providers:tls", "default_5_5_1")}::0a1b`;
const MEMBER_PROVIDER = urn("pulumi:providers:kubernetes", "member-member1");

const deployment: ExportedDeployment = {
  deployment: {
    resources: [
      {
        urn: STACK,
        custom: false,
        type: "pulumi:pulumi:Stack",
        outputs: { kubeconfig: exportedSecret("apiVersion: v1") },
      },
      { urn: COMPONENT, custom: false, type: "karmada:index:KarmadaControlPlane", parent: STACK },
      {
        urn: urn("pulumi:providers:tls", "default_5_5_1"),
        custom: true,
        type: "pulumi:providers:tls",
        id: "0a1b",
      },
      {
        urn: MEMBER_PROVIDER,
        custom: true,
        type: "pulumi:providers:kubernetes",
        id: "9f",
        parent: STACK,
        inputs: { kubeconfig: exportedSecret("kind: Config"), deleteUnreachable: "true" },
      },
      {
        urn: urn("tls:index/privateKey:PrivateKey", "karmada-ca-key", "karmada:index:KarmadaControlPlane"),
        custom: true,
        type: "tls:index/privateKey:PrivateKey",
        id: "k1",
        parent: COMPONENT,
        provider: TLS_DEFAULT,
        inputs: { algorithm: "RSA", rsaBits: 3072 },
        additionalSecretOutputs: ["privateKeyPem"],
        replacementTrigger: "window=5840h/85;generation=0",
        deletedWith: COMPONENT,
      },
      {
        urn: urn("kubernetes:core/v1:Namespace", "member1-kube-system"),
        custom: true,
        type: "kubernetes:core/v1:Namespace",
        id: "kube-system",
        parent: STACK,
        provider: `${MEMBER_PROVIDER}::9f`,
        external: true,
        dependencies: [MEMBER_PROVIDER],
      },
    ],
  },
};

describe("state replay: the bare program's requests from an exported deployment", () => {
  const requests = requestsOfDeployment(deployment);

  it("leaves out the stack and default providers, keeps the state's order", () => {
    expect(requests.map((r) => r.name)).toEqual([
      "karmada",
      "member-member1",
      "karmada-ca-key",
      "member1-kube-system",
    ]);
  });

  it("registers children of the stack without a parent, others under theirs", () => {
    expect(requests.find((r) => r.name === "karmada")?.parent).toBe("");
    expect(requests.find((r) => r.name === "karmada-ca-key")?.parent).toBe(COMPONENT);
  });

  it("lets the SDK pick default providers and passes explicit ones", () => {
    expect(requests.find((r) => r.name === "karmada-ca-key")?.provider).toBe("");
    expect(requests.find((r) => r.name === "member1-kube-system")?.provider).toBe(`${MEMBER_PROVIDER}::9f`);
    expect(isDefaultProvider(TLS_DEFAULT)).toBe(true);
    expect(isDefaultProvider(`${MEMBER_PROVIDER}::9f`)).toBe(false);
  });

  it("turns exported secrets into the wire format's secret marker, other values as they are", () => {
    expect(requests.find((r) => r.name === "member-member1")?.inputs).toEqual({
      kubeconfig: wireSecret("kind: Config"),
      deleteUnreachable: "true",
    });
    expect(wireSecrets({ list: [exportedSecret({ a: [1, "b"] }), 2] })).toEqual({
      list: [wireSecret({ a: [1, "b"] }), 2],
    });
  });

  it("carries the options that change a diff, and only those set", () => {
    expect(requests.find((r) => r.name === "karmada-ca-key")?.options).toEqual({
      additionalSecretOutputs: ["privateKeyPem"],
      replacementTrigger: "window=5840h/85;generation=0",
      deletedWith: COMPONENT,
    });
    expect(requests.find((r) => r.name === "karmada")?.options).toBeUndefined();
  });

  it("reads what the state marks external, by id, after what it depended on", () => {
    const read = requests.find((r) => r.name === "member1-kube-system");
    expect(read).toMatchObject({ op: "read", id: "kube-system", dependencies: [MEMBER_PROVIDER] });
    expect(requests.filter((r) => r.op === "read")).toHaveLength(1);
  });

  it("exports the stack's outputs with their secrets marked", () => {
    expect(stackOutputsOfDeployment(deployment)).toEqual({ kubeconfig: wireSecret("apiVersion: v1") });
    expect(stackOutputsOfDeployment({ deployment: {} })).toEqual({});
  });
});
