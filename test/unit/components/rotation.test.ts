import { parse } from "yaml";
import { CERTIFICATES_CHECKSUM_ANNOTATION } from "../../../lib/manifests/workloads/metadata";
import { DEFAULT_LEAF_VALIDITY_HOURS } from "../../../lib/pki/certificates";
import { providerSlotInUse, slotWindowHours } from "../../../lib/pki/rotation";
import { buildEstate } from "../../support/estate";
import { Registration } from "../../support/mocks";

const HOUR = 3_600_000;
const triggers = (records: Registration[]) =>
  new Map(
    records
      .filter((r) => r.type.startsWith("tls:"))
      .map((r) => [`${r.type} ${r.name}`, r.replacementTrigger]),
  );

/** Resources that (transitively) take an input value from one of `roots` (dependsOn edges don't count). */
function downstream(records: Registration[], roots: Set<string>): Registration[] {
  const reached = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of records) {
      if (!reached.has(r.urn) && r.inputDependencies.some((d) => reached.has(d))) {
        reached.add(r.urn);
        grew = true;
      }
    }
  }
  return records.filter((r) => reached.has(r.urn) && !roots.has(r.urn));
}

describe("certificate rotation", () => {
  const now = Date.UTC(2026, 10, 21);
  const build = (generation: number, at = now) =>
    buildEstate(
      { pki: { rotation: { generation, now: () => at } } },
      { inCluster: { replicas: 1 }, pki: { rotation: { generation, now: () => at } } },
    );

  it("'rotate now' replaces the leaves only: CAs and the service-account key keep their identity", async () => {
    const before = triggers((await build(0)).records);
    const after = triggers((await build(1)).records);
    const changed = [...after.keys()].filter((k) => after.get(k) !== before.get(k));
    expect(changed.length).toBeGreaterThan(10);
    for (const key of changed) {
      expect(key).toMatch(/(LocallySignedCert|PrivateKey) .*-(cert|key)$/);
      expect(key).not.toMatch(/-(karmada-ca|front-proxy-ca|etcd-ca)(-key)?$|-sa-key$/);
    }
    for (const ca of ["karmada-karmada-ca", "karmada-front-proxy-ca", "etcd-etcd-ca", "karmada-sa-key"]) {
      const hit = [...after.keys()].find((k) => k.endsWith(` ${ca}`));
      expect(hit).toBeDefined();
      expect(after.get(hit!)).toBeUndefined();
    }
  });

  it("what a rotation touches downstream is only Secrets, kubeconfig consumers and the workloads mounting them", async () => {
    const { records } = await build(0);
    const leaves = new Set(
      records.filter((r) => r.type === "tls:index/locallySignedCert:LocallySignedCert").map((r) => r.urn),
    );
    const touched = downstream(records, leaves);
    expect([...new Set(touched.map((r) => r.type))].sort()).toEqual([
      "kubernetes:apps/v1:Deployment",
      "kubernetes:apps/v1:StatefulSet",
      "kubernetes:core/v1:Secret",
      "pulumi:providers:kubernetes",
    ]);
    // every workload that mounts a certificate rolls with it (its pod template's checksum), and no other
    const workloads = records.filter((r) => /:apps\/v1:(Deployment|StatefulSet)$/.test(r.type));
    expect(workloads.length).toBeGreaterThan(0);
    expect(
      touched
        .filter((r) => workloads.includes(r))
        .map((r) => r.name)
        .sort(),
    ).toEqual(workloads.map((r) => r.name).sort());
  });

  it("a rotation changes the certificates checksum of each workload's pod template, and nothing else in it", async () => {
    const templates = async (generation: number) => {
      const { records } = await build(generation);
      return new Map(
        records
          .filter((r) => /:apps\/v1:(Deployment|StatefulSet)$/.test(r.type))
          .map((r) => [r.name, (r.inputs as any).spec.template]),
      );
    };
    const [before, after] = [await templates(0), await templates(0)];
    const rotated = await templates(1);
    expect(after).toEqual(before); // deterministic: an unchanged estate keeps its checksums
    expect(before.size).toBeGreaterThan(0);
    for (const [name, template] of before) {
      const renewed = rotated.get(name);
      const checksum = (t: any) => t.metadata.annotations[CERTIFICATES_CHECKSUM_ANNOTATION];
      expect(checksum(template)).toMatch(/^[0-9a-f]{64}$/);
      expect(checksum(renewed)).toMatch(/^[0-9a-f]{64}$/);
      expect({ name, same: checksum(renewed) === checksum(template) }).toEqual({ name, same: false });
      const without = (t: any) => ({
        ...t,
        metadata: {
          ...t.metadata,
          annotations: { ...t.metadata.annotations, [CERTIFICATES_CHECKSUM_ANNOTATION]: "" },
        },
      });
      expect(without(renewed)).toEqual(without(template));
    }
  });

  /** The Karmada provider's kubeconfig and the resource name its client certificate came from (mocks). */
  const karmadaProvider = (records: Registration[]) => {
    const provider = records.find(
      (r) => r.type === "pulumi:providers:kubernetes" && r.name === "karmada-karmada",
    )!;
    const user = parse(provider.inputs.kubeconfig).users[0].user;
    const cert = Buffer.from(user["client-certificate-data"], "base64").toString();
    return { kubeconfig: provider.inputs.kubeconfig, certificate: /\n(\S+)/.exec(cert)![1] };
  };

  it("the Karmada provider authenticates as the provider slot not renewed in this window; 'rotate now' leaves it as it was", async () => {
    const before = await build(0);
    const provider = karmadaProvider(before.records);
    expect(provider.certificate).toBe(
      `karmada-provider-${providerSlotInUse(DEFAULT_LEAF_VALIDITY_HOURS, now)}-cert`,
    );
    expect(before.records.find((r) => r.name === "karmada-karmada")!.secretPaths).toContain("kubeconfig");
    expect(karmadaProvider((await build(1)).records).kubeconfig).toBe(provider.kubeconfig);
  });

  it("at a slot window boundary the providers switch to the slot issued in the window before, while the other renews", async () => {
    const window = slotWindowHours(DEFAULT_LEAF_VALIDITY_HOURS) * HOUR;
    const start = (Math.floor(now / window) + 1) * window; // the next window
    const [last, next] = [await build(0, start - 1), await build(0, start)];
    const [was, is] = [karmadaProvider(last.records).certificate, karmadaProvider(next.records).certificate];
    expect(is).not.toBe(was);
    const [oldTriggers, newTriggers] = [triggers(last.records), triggers(next.records)];
    const trigger = (t: Map<string, unknown>, name: string) =>
      t.get(`tls:index/locallySignedCert:LocallySignedCert ${name}`);
    // the slot in use now kept its certificate; the one it left renews
    expect(trigger(newTriggers, is)).toBe(trigger(oldTriggers, is));
    expect(trigger(newTriggers, was)).not.toBe(trigger(oldTriggers, was));
  });

  it("renews on a plain `pulumi up` before expiry, and not before the renew window", async () => {
    const base = triggers((await build(0, now)).records);
    const sameWindow = triggers((await build(0, now + HOUR)).records);
    expect(sameWindow).toEqual(base);
    // 1-year leaves renew a third of their validity early: 8 months later the window has moved on
    const later = triggers((await build(0, now + 8 * 30 * 24 * HOUR)).records);
    const moved = [...later.keys()].filter((k) => later.get(k) !== base.get(k));
    expect(moved.length).toBeGreaterThan(10);
  });
});
