import { Registration } from "../../support/mocks";
import {
  buildMemberEstate,
  childrenOf,
  componentOf,
  MemberSpec,
  objectsOf,
  transitiveDependencies,
} from "./estate";

jest.setTimeout(120_000);

const push = (clusterName: string, extra: Partial<MemberSpec> = {}): MemberSpec => ({
  clusterName,
  mode: "Push",
  apiEndpoint: `https://${clusterName}.example.com:6443`,
  ...extra,
});
const pull = (clusterName: string, extra: Partial<MemberSpec> = {}): MemberSpec =>
  push(clusterName, { mode: "Pull", ...extra });

describe("independence of members", () => {
  it("has no dependency edge, direct or transitive, between two members' resources", async () => {
    const { records } = await buildMemberEstate([
      push("p1"),
      push("p2"),
      pull("q1"),
      pull("q2", { pull: { identity: "bootstrapToken" } }),
    ]);
    const owned = new Map<string, string>();
    for (const cluster of ["p1", "p2", "q1", "q2"]) {
      for (const r of childrenOf(records, componentOf(records, cluster))) owned.set(r.urn, cluster);
    }
    const crossings: string[] = [];
    for (const [urn, cluster] of owned) {
      const r = records.find((x) => x.urn === urn)!;
      for (const dep of transitiveDependencies(records, r)) {
        const other = owned.get(dep);
        if (other && other !== cluster) crossings.push(`${r.name} → ${dep}`);
      }
      const providerUrn = r.provider.split("::").slice(0, -1).join("::");
      const providerOwner = owned.get(providerUrn);
      if (providerOwner && providerOwner !== cluster)
        crossings.push(`${r.name} uses provider of ${providerOwner}`);
    }
    expect(owned.size).toBeGreaterThan(40);
    expect(crossings).toEqual([]);
  });
});

describe("scale", () => {
  it("grows linearly: 100 members cost 100 times one member, and nothing else grows", async () => {
    // a member's registrations: its component and everything under it
    const count = (records: Registration[], cluster: string) =>
      childrenOf(records, componentOf(records, cluster)).length + 1;
    const one = await buildMemberEstate([push("m0")]);
    const base = one.records.length - count(one.records, "m0");
    const specs = Array.from({ length: 100 }, (_, i) => (i % 2 ? pull(`m${i}`) : push(`m${i}`)));
    const many = await buildMemberEstate(specs);
    const perPush = count(one.records, "m0");
    const pullOne = await buildMemberEstate([pull("m1")]);
    const perPull = count(pullOne.records, "m1");
    for (let i = 0; i < 100; i++) expect(count(many.records, `m${i}`)).toBe(i % 2 ? perPull : perPush);
    // the estate itself (control plane, etcd, providers of the members aside) does not grow with members
    const providers = (records: Registration[]) => records.filter((r) => r.name.startsWith("member-")).length;
    expect(many.records.length - providers(many.records)).toBe(
      base - providers(one.records) + 50 * perPush + 50 * perPull,
    );
  });
});

describe("credential rotation and forced removal", () => {
  const find = (records: Registration[], cluster: string, name: string) =>
    childrenOf(records, componentOf(records, cluster)).find((r) => r.name === name)!;

  it("protect: true protects every resource of that registration and no other member's", async () => {
    const { records } = await buildMemberEstate([push("p", { protect: true }), pull("q")]);
    const of = (cluster: string) => childrenOf(records, componentOf(records, cluster));
    expect(of("p").length).toBeGreaterThan(3);
    expect(of("p").filter((r) => !r.protect)).toEqual([]);
    expect(of("q").filter((r) => r.protect)).toEqual([]);
  });

  it("rotates tokens and certificates on a generation bump without touching the Cluster object", async () => {
    const before = await buildMemberEstate([push("p"), pull("q")]);
    const after = await buildMemberEstate([
      push("p", { credentialGeneration: 1 }),
      pull("q", { credentialGeneration: 1 }),
    ]);
    const token = "p-member-token-karmada-p";
    expect(find(before.records, "p", token).replacementTrigger).not.toEqual(
      find(after.records, "p", token).replacementTrigger,
    );
    expect(find(after.records, "p", token).inputs.metadata.name).toBe("karmada-p");
    // the ServiceAccounts too: a token Secret re-created for the same account holds the same token
    for (const [cluster, account] of [
      ["p", "karmada-p"],
      ["p", "karmada-impersonator"],
      ["q", "karmada-q"],
      ["q", "karmada-impersonator"],
    ]) {
      const name = `${cluster}-member-serviceaccount-karmada-cluster-${account}`;
      const [old, next] = [find(before.records, cluster, name), find(after.records, cluster, name)];
      expect(old.replacementTrigger).not.toEqual(next.replacementTrigger);
      expect(next.deleteBeforeReplace).toBe(true);
      // its token Secret goes first and comes after it
      expect(find(after.records, cluster, `${cluster}-member-token-${account}`).dependencies).toContain(
        next.urn,
      );
    }
    const cert = "q-karmada-agent-client-cert";
    expect(find(before.records, "q", cert).replacementTrigger).not.toEqual(
      find(after.records, "q", cert).replacementTrigger,
    );
    const pod = (records: Registration[]) =>
      find(records, "q", "q-member-deployment-karmada-system-karmada-agent").inputs.spec.template.metadata
        .annotations;
    expect(pod(before.records)).not.toEqual(pod(after.records));
    for (const [cluster, name] of [
      ["p", "p-karmada-cluster-p"],
      ["q", "q-karmada-cluster-q"],
    ]) {
      expect(find(after.records, cluster, name).inputs).toEqual(find(before.records, cluster, name).inputs);
    }
  });

  it("keeps member-side objects on delete with forceRemove, and only those", async () => {
    const { records } = await buildMemberEstate([push("gone", { forceRemove: true }), push("here")]);
    const gone = childrenOf(records, componentOf(records, "gone")).filter(
      (r) => r.custom && r.type.startsWith("kubernetes:"),
    );
    for (const r of gone) expect(r.retainOnDelete).toBe(r.name.startsWith("gone-member-"));
    expect(gone.filter((r) => r.retainOnDelete).length).toBe(7);
    const here = childrenOf(records, componentOf(records, "here"));
    expect(here.every((r) => !r.retainOnDelete)).toBe(true);
    expect(objectsOf(records).get("Cluster//gone")!.retainOnDelete).toBe(false);
  });
});
