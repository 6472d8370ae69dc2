import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { EtcdCluster, EtcdClusterArgs } from "../../../components/etcdCluster";
import {
  DEFAULT_POLICY_PARAMETERS,
  POLICY_RULES,
  PolicyParameters,
  PolicySubject,
  PolicyViolation,
  imageFrom,
  resolvePolicyParameters,
} from "../../../lib/policy";
import { externalEtcdCredentials } from "../../../devkit/pki";
import { Registration, recordResources, settle } from "../../support/mocks";
import { TEST_SSH_KEY } from "../../../devkit/sshKey";

/** When the certificates the mocks issue end (test/support/mocks.ts, their canned state). */
const MOCK_CERT_END = "2036-01-01T00:00:00Z";

/** The engine's view after an `up` of what the mocks recorded: inputs, and the leaves' end of validity. */
function subjects(records: readonly Registration[]): PolicySubject[] {
  return records.map((r) => ({
    type: r.type,
    name: r.name,
    urn: r.urn,
    props:
      r.type === "tls:index/locallySignedCert:LocallySignedCert"
        ? { ...r.inputs, validityEndTime: MOCK_CERT_END }
        : r.inputs,
    protect: r.protect,
    parent: r.parentUrn || undefined,
  }));
}

/** Builds one etcd with the library and returns what each rule finds, by rule name. */
async function findings(
  args: EtcdClusterArgs,
  opts: { protect?: boolean; params?: Partial<PolicyParameters>; now?: number } = {},
): Promise<Record<string, PolicyViolation[]>> {
  const records = recordResources();
  const provider =
    args.mode === "inCluster"
      ? new k8s.Provider("host", { kubeconfig: "kubeconfig", clusterIdentifier: "host" })
      : undefined;
  const etcd = new EtcdCluster("etcd", args, { protect: opts.protect, provider });
  await settle(etcd);
  const params = { ...DEFAULT_POLICY_PARAMETERS, ...opts.params };
  const resources = subjects(records);
  return Object.fromEntries(
    POLICY_RULES.map((rule) => [
      rule.name,
      rule.check(resources, params, opts.now ?? Date.parse("2027-01-01")),
    ]),
  );
}

const hosts = (count: number, hostKey?: string) =>
  Array.from({ length: count }, (_, i) => ({
    name: `etcd${i + 1}`,
    address: `10.0.0.${11 + i}`,
    privateKey: pulumi.secret(TEST_SSH_KEY),
    ...(hostKey ? { hostKey } : {}),
  }));
const HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
const PRODUCTION_IN_CLUSTER: EtcdClusterArgs = {
  mode: "inCluster",
  inCluster: {
    replicas: 3,
    storage: { kind: "pvc", size: "20Gi" },
    backup: { schedule: "0 */4 * * *", retain: 12 },
  },
};

describe("the policy pack's rules on etcd built by the library", () => {
  it("a production in-cluster etcd (3 members, claims, backups, protected) has no finding", async () => {
    const found = await findings({ ...PRODUCTION_IN_CLUSTER, protect: true });
    expect(Object.entries(found).filter(([, v]) => v.length > 0)).toEqual([]);
  });

  it("one member on emptyDir without backups: each rule names the StatefulSet or the component and the fix", async () => {
    const found = await findings({
      mode: "inCluster",
      inCluster: { replicas: 1, storage: { kind: "emptyDir" } },
    });
    expect(found["etcd-members"]).toEqual([
      {
        urn: expect.stringMatching(/karmada:index:EtcdCluster\$kubernetes:apps\/v1:StatefulSet::/),
        message: expect.stringMatching(/etcd "etcd" runs 1 member\(s\).*Fix: etcd\.inCluster\.replicas: 3\./),
      },
    ]);
    expect(found["etcd-persistent-storage"]).toEqual([
      {
        urn: expect.stringContaining("kubernetes:apps/v1:StatefulSet"),
        message: expect.stringMatching(/emptyDir .*Fix: etcd\.inCluster\.storage: \{ kind: pvc/),
      },
    ]);
    expect(found["etcd-backups"]).toEqual([
      {
        urn: expect.stringMatching(/::karmada:index:EtcdCluster::etcd$/),
        message: expect.stringMatching(/etcd "etcd" has no scheduled backup\. Fix: etcd\.inCluster\.backup/),
      },
    ]);
    // unprotected: the CA, its key, the StatefulSet (data) and the namespace
    const unprotected = found["stateful-protected"].map((v) => v.message);
    expect(unprotected).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^etcd-etcd-ca holds state \(certificate-authority\)/),
        expect.stringMatching(/holds state \(etcd-data\) and is not protected\. Fix: protect: true/),
      ]),
    );
  });

  it("hostPath storage is persistent; a minimum of 5 members is a parameter", async () => {
    const onNode = await findings({
      mode: "inCluster",
      inCluster: { replicas: 1, storage: { kind: "hostPath", path: "/var/lib/etcd" } },
    });
    expect(onNode["etcd-persistent-storage"]).toEqual([]);
    const five = await findings(PRODUCTION_IN_CLUSTER, { params: { minEtcdMembers: 5 } });
    expect(five["etcd-members"].map((v) => v.message)).toEqual([
      expect.stringMatching(/runs 3 member\(s\) \(StatefulSet etcd-.*Fix: etcd\.inCluster\.replicas: 5\./),
    ]);
  });

  it("etcd on hosts: too few members and no backup, named on the component", async () => {
    const found = await findings({
      mode: "hosts",
      hosts: { hosts: hosts(1, HOST_KEY), backup: { enabled: false } },
    });
    expect(found["etcd-members"]).toEqual([
      {
        urn: expect.stringMatching(/::karmada:index:EtcdCluster::etcd$/),
        message: expect.stringMatching(
          /runs 1 member\(s\) on hosts.*Fix: list 3 or more hosts in etcd\.hosts\.hosts\./,
        ),
      },
    ]);
    expect(found["etcd-backups"].map((v) => v.message)).toEqual([
      expect.stringContaining("Fix: etcd.hosts.backup: { enabled: true"),
    ]);
    expect(found["host-keys-pinned"]).toEqual([]);
  });

  it("hosts reached without a pinned key: one finding per host, naming the address and how to get its key", async () => {
    const found = await findings({ mode: "hosts", hosts: { hosts: hosts(3) } });
    expect(found["host-keys-pinned"].map((v) => v.message)).toEqual([
      expect.stringMatching(
        /^the host 10\.0\.0\.11 \(first used by etcd-etcd1-.*ssh-keyscan -t ed25519 10\.0\.0\.11\)/,
      ),
      expect.stringMatching(/^the host 10\.0\.0\.12 /),
      expect.stringMatching(/^the host 10\.0\.0\.13 /),
    ]);
  });

  it("etcd on three hosts with pinned keys and the default backup passes those rules", async () => {
    const found = await findings({ mode: "hosts", hosts: { hosts: hosts(3, HOST_KEY) } });
    expect(found["etcd-members"]).toEqual([]);
    expect(found["host-keys-pinned"]).toEqual([]);
    expect(found["etcd-backups"]).toEqual([]);
  });

  it("protect must be a boolean, named in the error", () => {
    recordResources();
    expect(() => new EtcdCluster("etcd", { mode: "external", protect: "yes" as never })).toThrow(
      /invalid protect: "yes" is not a boolean \(allowed: true, false\)/,
    );
  });

  it("an external etcd is not the estate's to judge", async () => {
    const found = await findings({
      mode: "external",
      external: {
        endpoints: ["https://10.0.0.1:2379"],
        ...externalEtcdCredentials(),
      },
    });
    expect(Object.values(found).flat()).toEqual([]);
  });

  it("leaf certificates: a life beyond the maximum, and too little left at `now`", async () => {
    const long = await findings({
      ...PRODUCTION_IN_CLUSTER,
      pki: { leafValidityHours: 20_000, caValidityHours: 87_600 },
    });
    expect(long["leaf-certificate-validity"].length).toBeGreaterThan(0);
    expect(long["leaf-certificate-validity"][0].message).toMatch(
      /certificate etcd-etcd-\S+-cert is issued for 20000 hours \(more than 8760\)\. Fix: pki\.leafValidityHours: 8760/,
    );
    // MOCK_CERT_END is 2036-01-01
    const late = await findings(PRODUCTION_IN_CLUSTER, { now: Date.parse("2035-12-20T00:00:00Z") });
    expect(late["leaf-certificate-renewal"][0].message).toMatch(
      /expires at 2036-01-01T00:00:00Z, in 288 hours \(less than 720 hours left\)\. Fix: run `pulumi up`/,
    );
    const expired = await findings(PRODUCTION_IN_CLUSTER, { now: Date.parse("2036-02-01T00:00:00Z") });
    expect(expired["leaf-certificate-renewal"][0].message).toContain(`expired at ${MOCK_CERT_END}`);
    expect((await findings(PRODUCTION_IN_CLUSTER))["leaf-certificate-renewal"]).toEqual([]);
  });

  it("images: every container outside the allowed registries, unchecked while none is configured", async () => {
    const args = {
      ...PRODUCTION_IN_CLUSTER,
      inCluster: { ...PRODUCTION_IN_CLUSTER.inCluster, image: "docker.io/bitnami/etcd:3.5.21" },
    };
    const open = await findings(args);
    expect(open["images-from-allowed-registries"]).toEqual([]);
    const found = await findings(args, {
      params: { allowedRegistries: ["registry.corp.example:5000/karmada"] },
    });
    expect(found["images-from-allowed-registries"].map((v) => v.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /pulls docker\.io\/bitnami\/etcd:3\.5\.21.*outside the allowed registries \(registry\.corp\.example:5000\/karmada\)/,
        ),
      ]),
    );
    const mirrored = await findings(
      {
        ...args,
        inCluster: { ...args.inCluster, image: "registry.corp.example:5000/karmada/etcd:3.5.21-0" },
      },
      { params: { allowedRegistries: ["registry.corp.example:5000/karmada"] } },
    );
    expect(mirrored["images-from-allowed-registries"].map((v) => v.message)).not.toEqual(
      expect.arrayContaining([expect.stringContaining("etcd:3.5.21-0")]),
    );
  });
});

describe("imageFrom", () => {
  it.each([
    ["reg.example:5000/karmada/etcd:3.5", "reg.example:5000/karmada", true],
    ["reg.example:5000/karmadax/etcd:3.5", "reg.example:5000/karmada", false],
    ["reg.example:5000/karmada", "reg.example:5000/karmada", false],
    ["reg.example/etcd@sha256:00", "reg.example", true],
  ])("%s from %s: %s", (image, registry, expected) => {
    expect(imageFrom(image, registry)).toBe(expected);
  });
});

describe("resolvePolicyParameters", () => {
  it("defaults what is not set", () => {
    expect(resolvePolicyParameters({})).toEqual(DEFAULT_POLICY_PARAMETERS);
    expect(resolvePolicyParameters({ minEtcdMembers: 5 }).minEtcdMembers).toBe(5);
  });

  it.each([
    [{ minEtcdMembers: 0 }, /invalid minEtcdMembers: 0 is not a whole number ≥ 1/],
    [{ maxLeafValidityHours: 1.5 }, /invalid maxLeafValidityHours: 1\.5/],
    [{ minLeafRemainingHours: "720" }, /invalid minLeafRemainingHours: "720"/],
    [{ allowedRegistries: "reg.example" }, /invalid allowedRegistries: .* \(allowed: registry hosts/],
    [{ allowedRegistries: ["reg.example/"] }, /invalid allowedRegistries/],
  ])("%j is refused naming the field", (raw, message) => {
    expect(() => resolvePolicyParameters(raw as never)).toThrow(message);
  });
});

describe("the catalog", () => {
  it("names every rule once, with a level the engine accepts", () => {
    const names = POLICY_RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of POLICY_RULES)
      expect(["mandatory", "advisory", "disabled"]).toContain(rule.enforcementLevel);
  });
});
