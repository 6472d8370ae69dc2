import * as fs from "fs";
import * as path from "path";
import { PreviewDigest, PreviewStep, parsePreviewDigest } from "../../../lib/preview/digest";
import { ConfigError } from "../../../lib/validation/errors";
import {
  EstatePreview,
  graphOnlyDigest,
  groupResources,
  isDrawn,
  machineOf,
  providerUrn,
  readEstatePreview,
  resourceLinks,
  summarizeEstate,
} from "../../../scripts/diagrams/estate";
import {
  estateFullDot,
  estateSummaryDot,
  groupLabel,
  resourceNodeIds,
} from "../../../scripts/diagrams/estateDot";

/** `pulumi preview --json` of the local estate by the real engine, reduced by graphOnlyDigest (render.ts --record-preview). */
const FIXTURE = path.join(__dirname, "..", "..", "fixtures", "diagrams", "local-preview.json");
const recorded = (): PreviewDigest => parsePreviewDigest(fs.readFileSync(FIXTURE, "utf8"));
const SOURCE = { stack: "local", settingsFile: "Pulumi.local.yaml" };

const urn = (chain: string, name: string) => `urn:pulumi:t::p::${chain}::${name}`;
const STACK = urn("pulumi:pulumi:Stack", "p-t");
const COMP = urn("karmada:index:EtcdCluster", "etcd");
const child = (type: string, name: string) => urn(`karmada:index:EtcdCluster$${type}`, name);
const step = (u: string, state: Record<string, unknown>, op = "create"): PreviewStep =>
  ({ op, urn: u, newState: state }) as unknown as PreviewStep;

/** A small program: a component with PKI, commands on two machines, objects through its own provider. */
function smallDigest(): PreviewDigest {
  const key = child("tls:index/privateKey:PrivateKey", "etcd-ca-key");
  const cert = child("tls:index/selfSignedCert:SelfSignedCert", "etcd-ca");
  const m1 = child("command:remote:Command", "etcd-m1-install");
  const m2 = child("command:remote:Command", "etcd-m2-install");
  const cluster = child("command:remote:Command", "etcd-cluster");
  const provider = child("pulumi:providers:kubernetes", "etcd-kube");
  const tlsDefault = urn("pulumi:providers:tls", "default_5_5_1");
  const ns = child("kubernetes:core/v1:Namespace", "etcd-ns");
  const secret = child("kubernetes:core/v1:Secret", "etcd-secret");
  const later = urn("karmada:index:KarmadaControlPlane$command:remote:Command", "karmada-start");
  return {
    config: { "karmada:etcd": JSON.stringify({ hosts: { hosts: [{ name: "m1" }, { name: "m2" }] } }) },
    steps: [
      step(STACK, { custom: false }),
      step(COMP, { custom: false, parent: STACK }),
      step(urn("karmada:index:KarmadaControlPlane", "karmada"), { custom: false, parent: STACK }),
      step(tlsDefault, { custom: true, parent: STACK }),
      step(key, { custom: true, parent: COMP, provider: `${tlsDefault}::id-1` }),
      step(cert, { custom: true, parent: COMP, dependencies: [key], provider: `${tlsDefault}::id-1` }),
      step(m1, { custom: true, parent: COMP, dependencies: [cert, key] }),
      step(m2, { custom: true, parent: COMP, dependencies: [cert, m1] }),
      step(cluster, { custom: true, parent: COMP, dependencies: [m1, m2] }),
      step(provider, { custom: true, parent: COMP, dependencies: [cert] }),
      step(ns, { custom: true, parent: COMP, provider: `${provider}::04da6b54` }),
      step(secret, {
        custom: true,
        parent: COMP,
        dependencies: [ns, cluster],
        provider: `${provider}::04da6b54`,
      }),
      step(later, {
        custom: true,
        parent: urn("karmada:index:KarmadaControlPlane", "karmada"),
        dependencies: [COMP, secret],
      }),
    ],
  };
}

describe("readEstatePreview", () => {
  test("one resource per URN with sorted dependencies and the provider's URN (its id cut off)", () => {
    const preview = readEstatePreview(smallDigest());
    expect(preview.resources).toHaveLength(13);
    const cert = preview.resources.find((r) => r.name === "etcd-m1-install")!;
    expect(cert.dependencies).toEqual([...cert.dependencies].sort());
    expect(preview.resources.find((r) => r.name === "etcd-ns")!.provider).toBe(
      child("pulumi:providers:kubernetes", "etcd-kube"),
    );
    expect(preview.machines).toEqual(["m1", "m2"]);
  });

  test("a provider reference is cut at its last `::` (URNs contain `::` themselves)", () => {
    expect(providerUrn("urn:pulumi:s::p::pulumi:providers:tls::default::04da6b54-80e4")).toBe(
      "urn:pulumi:s::p::pulumi:providers:tls::default",
    );
  });

  test("malformed dependencies are a ConfigError naming the step", () => {
    const digest = { steps: [step(COMP, { custom: false, dependencies: "x" })] };
    expect(() => readEstatePreview(digest)).toThrow(ConfigError);
    expect(() => readEstatePreview(digest)).toThrow(/preview\.steps\[0\]\.newState\.dependencies/);
  });

  test("a step without a new state (a delete) leaves no resource", () => {
    const digest = { steps: [{ op: "delete", urn: COMP } as PreviewStep] };
    expect(readEstatePreview(digest).resources).toEqual([]);
  });
});

describe("resourceNodeIds", () => {
  test("short `<type>::<name>` ids, the whole type chain only where two would collide", () => {
    const a = urn("karmada:index:EtcdCluster$command:remote:Command", "x");
    const b = urn("karmada:index:KarmadaControlPlane$command:remote:Command", "x");
    const c = child("tls:index/privateKey:PrivateKey", "k");
    expect([...resourceNodeIds([a, b, c]).values()]).toEqual([
      "karmada:index:EtcdCluster$command:remote:Command::x",
      "karmada:index:KarmadaControlPlane$command:remote:Command::x",
      "PrivateKey::k",
    ]);
  });
});

describe("machineOf", () => {
  test.each([
    ["etcd-etcd1-install", "etcd1"],
    ["etcd-etcd10-install", "etcd10"],
    ["etcd-etcd1", "etcd1"],
    ["etcd-cluster", ""],
    ["karmada-cp1-pki-karmada-apiserver", ""],
  ])("%s → %s", (name, machine) => expect(machineOf("etcd", name, ["etcd1", "etcd10"])).toBe(machine));
});

describe("summarizeEstate on a small program", () => {
  const summary = summarizeEstate(readEstatePreview(smallDigest()));
  const edge = (from: string, to: string) => summary.edges.find((e) => e.from === from && e.to === to);

  test("groups: PKI, commands per machine, other commands, objects per provider, the provider", () => {
    expect(summary.groups.filter((g) => g.owner === "etcd").map((g) => g.id)).toEqual([
      "etcd/commands",
      "etcd/commands/m1",
      "etcd/commands/m2",
      "etcd/component",
      "etcd/objects/etcd-kube",
      "etcd/pki",
      "etcd/provider/etcd-kube",
    ]);
    expect(summary.owners).toEqual([
      { name: "etcd", type: "EtcdCluster" },
      { name: "karmada", type: "KarmadaControlPlane" },
    ]);
  });

  test("links between groups are counted; links inside a group are not edges", () => {
    expect(edge("etcd/pki", "etcd/commands/m1")).toMatchObject({ kind: "dependency", count: 2 });
    expect(edge("etcd/pki", "etcd/commands/m2")!.count).toBe(1);
    expect(edge("etcd/commands/m1", "etcd/commands")!.count).toBe(1);
    expect(edge("etcd/provider/etcd-kube", "etcd/objects/etcd-kube")).toMatchObject({
      kind: "provider",
      count: 2,
    });
    expect(edge("etcd/pki", "etcd/pki")).toBeUndefined(); // the CA certificate needs its key: same group
  });

  test("the stack and default providers are not drawn, nor their links", () => {
    expect(summary.resourceCount).toBe(11); // 13 minus the stack and the default tls provider
    expect(summary.groups.flatMap((g) => g.resources).some((u) => u.includes("default_5_5_1"))).toBe(false);
    expect(summary.edges.some((e) => e.from.includes("default"))).toBe(false);
  });

  test("a component becomes a node only when something depends on it directly", () => {
    expect(edge("etcd/component", "karmada/commands")!.count).toBe(1);
    expect(summary.groups.some((g) => g.id === "karmada/component")).toBe(false);
  });

  test("labels name the group's size and, when mixed, each type", () => {
    const pki = summary.groups.find((g) => g.id === "etcd/pki")!;
    expect(groupLabel(pki)).toBe("PKI (tls) · 2\n1 PrivateKey\n1 SelfSignedCert");
    expect(groupLabel(summary.groups.find((g) => g.id === "etcd/commands/m1")!)).toBe("commands on m1 · 1");
  });
});

describe("the local estate, recorded from the real engine", () => {
  const digest = recorded();
  const preview: EstatePreview = readEstatePreview(digest);
  const summary = summarizeEstate(preview);
  const { groupOf, groups } = groupResources(preview);
  const machinesInSettings = ["karmada:etcd", "karmada:controlPlane"]
    .map((key) => JSON.parse(digest.config![key]))
    .flatMap((c) =>
      [...(c.hosts.hosts ?? []), ...(c.hosts.machines ?? [])].map((m: { name: string }) => m.name),
    );

  test("the machines are those of the settings", () => {
    expect(preview.machines).toEqual([...machinesInSettings].sort());
    expect(preview.machines.length).toBeGreaterThan(0);
  });

  test("every drawn resource is in exactly one group", () => {
    const drawn = preview.resources.filter(isDrawn).map((r) => r.urn);
    const grouped = groups.flatMap((g) => g.resources);
    expect([...grouped].sort()).toEqual([...drawn].sort());
    expect(new Set(grouped).size).toBe(grouped.length);
    expect(summary.resourceCount).toBe(drawn.length);
  });

  test("each machine's commands are the commands named after it, in its own component", () => {
    for (const g of groups.filter((x) => x.kind === "commands" && x.scope !== "")) {
      for (const u of g.resources) {
        expect(u).toContain("command:remote:Command::");
        expect(u.split("::").pop()).toMatch(new RegExp(`^${g.owner}-${g.scope}(-|$)`));
      }
    }
    const withCommands = new Set(groups.filter((g) => g.kind === "commands").map((g) => g.scope));
    for (const m of preview.machines) expect(withCommands.has(m)).toBe(true);
  });

  test("edge counts add up to the resource-level links between different groups", () => {
    const links = resourceLinks(preview);
    const across = links.filter((l) => groupOf.get(l.from) !== groupOf.get(l.to));
    expect(summary.edges.reduce((n, e) => n + e.count, 0)).toBe(across.length);
    expect(summary.linkCount).toBe(links.length);
    for (const e of summary.edges) {
      const direct = across.filter(
        (l) => groupOf.get(l.from) === e.from && groupOf.get(l.to) === e.to && l.kind === e.kind,
      );
      expect(direct).toHaveLength(e.count);
    }
  });

  test("the control plane's objects in karmada-apiserver come through its provider, which needs its PKI", () => {
    const objects = groups.filter((g) => g.kind === "objects" && g.owner === "karmada");
    expect(objects.length).toBeGreaterThan(0);
    for (const g of objects) {
      expect(
        summary.edges.some(
          (e) => e.to === g.id && e.kind === "provider" && e.from === `karmada/provider/${g.scope}`,
        ),
      ).toBe(true);
    }
    const providerNeeds = summary.edges
      .filter((e) => e.to.startsWith("karmada/provider/"))
      .map((e) => e.from);
    expect(providerNeeds).toContain("karmada/pki");
  });

  test("the graph-only recording is a fixed point (the fixture is what --record-preview writes)", () => {
    expect(graphOnlyDigest(digest)).toEqual(JSON.parse(fs.readFileSync(FIXTURE, "utf8")));
  });

  test("both DOT sources are independent of the order of the steps", () => {
    const reversed = { ...digest, steps: [...(digest.steps ?? [])].reverse() };
    const shuffled = readEstatePreview(reversed);
    expect(estateSummaryDot(summarizeEstate(shuffled), SOURCE)).toBe(estateSummaryDot(summary, SOURCE));
    expect(estateFullDot(shuffled, SOURCE)).toBe(estateFullDot(preview, SOURCE));
  });

  test("the summary draws every group and every edge once; the full graph every grouped resource", () => {
    const nodeLines = (dot: string) =>
      dot.split("\n").filter((l) => / \[label=/.test(l) && !l.includes(" -> "));
    const dot = estateSummaryDot(summary, SOURCE);
    expect(nodeLines(dot).map((l) => l.trim().split('" [')[0].slice(1))).toEqual(
      expect.arrayContaining(summary.groups.map((g) => g.id)),
    );
    expect(nodeLines(dot)).toHaveLength(summary.groups.length);
    expect(dot.match(/ -> /g)).toHaveLength(summary.edges.length);
    const full = estateFullDot(preview, SOURCE);
    expect(nodeLines(full)).toHaveLength(summary.groups.flatMap((g) => g.resources).length);
    expect(full).not.toMatch(/urn:pulumi:/);
  });
});
