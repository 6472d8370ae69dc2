import * as pulumi from "@pulumi/pulumi";
import {
  CA_IDS,
  CertSpec,
  controlPlaneCertificates,
  DEFAULT_LEAF_VALIDITY_HOURS,
  etcdCertificates,
} from "../../../lib/pki/certificates";
import { issuePki, IssuedPki } from "../../../lib/pki/issue";
import { IssuePkiArgs } from "../../../lib/pki/issue-args";
import { PkiFile } from "../../../lib/pki/layout";
import { rotationTrigger, slotRotationTrigger, slotWindowHours } from "../../../lib/pki/rotation";
import { testSettings } from "../../support/settings";
import { configError } from "../validation/config-error";

/**
 * Pulumi mocks: every registration is recorded with its inputs; tls resources get canned PEMs naming the
 * resource, so any PEM found in another resource's inputs tells which resource it came from.
 *
 * Resource options are not part of `newResource`'s arguments, so `replacementTrigger` is read one level
 * lower: the mock monitor's `registerResource` receives the engine request, which carries the serialized
 * trigger exactly as the real engine would get it. We wrap that method to record it per resource name.
 */
interface Registration {
  type: string;
  name: string;
  inputs: Record<string, any>;
  replacementTrigger?: unknown;
}
let registrations: Registration[] = [];
const triggers = new Map<string, unknown>();

const TLS = {
  key: "tls:index/privateKey:PrivateKey",
  selfSigned: "tls:index/selfSignedCert:SelfSignedCert",
  csr: "tls:index/certRequest:CertRequest",
  signed: "tls:index/locallySignedCert:LocallySignedCert",
};
const pem = (kind: string, name: string) => `-----BEGIN ${kind}-----\n${name}\n-----END ${kind}-----\n`;

function cannedState(type: string, name: string): Record<string, unknown> {
  switch (type) {
    case TLS.key:
      return { privateKeyPem: pem("RSA PRIVATE KEY", name), publicKeyPem: pem("PUBLIC KEY", name) };
    case TLS.selfSigned:
      return { certPem: pem("CERTIFICATE", name), validityEndTime: "2035-01-01T00:00:00Z" };
    case TLS.csr:
      return { certRequestPem: pem("CERTIFICATE REQUEST", name) };
    case TLS.signed:
      return { certPem: pem("CERTIFICATE", name), validityEndTime: `2026-01-01T00:00:00Z/${name}` };
    default:
      return {};
  }
}

beforeAll(async () => {
  await pulumi.runtime.setMocks({
    newResource: (args) => {
      registrations.push({ type: args.type, name: args.name, inputs: args.inputs });
      return { id: `${args.name}-id`, state: { ...args.inputs, ...cannedState(args.type, args.name) } };
    },
    call: () => ({}),
  });
  const monitor = pulumi.runtime.getMonitor() as any;
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: any, callback: unknown) => {
    triggers.set(`${req.getType()}::${req.getName()}`, req.getReplacementTrigger()?.toJavaScript());
    return register(req, callback);
  };
});

beforeEach(() => {
  registrations = [];
  triggers.clear();
});

class Owner extends pulumi.ComponentResource {
  constructor(name: string) {
    super("test:index:Owner", name);
  }
}

const NOW = Date.parse("2025-06-01T00:00:00Z");
const settings = testSettings({ components: { "karmada-search": { enabled: true } } });
const LEAVES: CertSpec[] = [
  ...controlPlaneCertificates(settings),
  ...etcdCertificates({ members: [{ name: "etcd-0", addresses: ["10.0.0.11"] }] }),
];

const unwrap = <T>(output: pulumi.Output<T>): Promise<T> => new Promise((resolve) => output.apply(resolve));
const isSecretInput = (value: unknown): boolean => pulumi.runtime.isRpcSecret(value);
const plain = (value: any): any => (isSecretInput(value) ? value.value : value);

/** Issues the PKI and waits until every output — hence every registration — has resolved. */
async function issue(overrides: Partial<IssuePkiArgs> = {}): Promise<IssuedPki> {
  const pki = issuePki({
    name: "kcp",
    parent: new Owner("kcp"),
    certificates: LEAVES,
    serviceAccountKey: true,
    rotation: { now: () => NOW },
    ...overrides,
  });
  await Promise.all(pki.files.map((f) => unwrap(pki.file(f))));
  await Promise.all(Object.values(pki.notAfter).map(unwrap));
  return pki;
}

const find = (type: string, name: string): Registration => {
  const found = registrations.find((r) => r.type === type && r.name === name);
  if (!found)
    throw new Error(`no ${type} named ${name}; have ${registrations.map((r) => r.name).join(", ")}`);
  return found;
};

describe("issuePki under mocks", () => {
  it("registers the documented child names and nothing else", async () => {
    await issue();
    const tlsNames = registrations
      .filter((r) => r.type.startsWith("tls:"))
      .map((r) => `${r.type.split(":")[2]} ${r.name}`);
    const expected = [
      ...CA_IDS.flatMap((ca) => [`PrivateKey kcp-${ca}-key`, `SelfSignedCert kcp-${ca}`]),
      ...LEAVES.flatMap((l) => [
        `PrivateKey kcp-${l.id}-key`,
        `CertRequest kcp-${l.id}-csr`,
        `LocallySignedCert kcp-${l.id}-cert`,
      ]),
      "PrivateKey kcp-sa-key",
    ];
    expect(tlsNames.sort()).toEqual(expected.sort());
  });

  it("signs each leaf with the CA of its spec: caCertPem and caPrivateKeyPem trace to that CA's resources", async () => {
    await issue();
    for (const spec of LEAVES) {
      const cert = find(TLS.signed, `kcp-${spec.id}-cert`);
      expect(cert.inputs.caCertPem).toBe(pem("CERTIFICATE", `kcp-${spec.signer}`));
      expect(plain(cert.inputs.caPrivateKeyPem)).toBe(pem("RSA PRIVATE KEY", `kcp-${spec.signer}-key`));
      expect(cert.inputs.certRequestPem).toBe(pem("CERTIFICATE REQUEST", `kcp-${spec.id}-csr`));
      expect(cert.inputs.allowedUses).toEqual(spec.allowedUses);
      expect(cert.inputs.validityPeriodHours).toBe(spec.validityHours);
      const csr = find(TLS.csr, `kcp-${spec.id}-csr`);
      expect(plain(csr.inputs.privateKeyPem)).toBe(pem("RSA PRIVATE KEY", `kcp-${spec.id}-key`));
      expect(csr.inputs.subject).toEqual({
        commonName: spec.commonName,
        ...(spec.organizations[0] ? { organization: spec.organizations[0] } : {}),
      });
      expect(csr.inputs.dnsNames ?? []).toEqual(spec.dnsNames);
      expect(csr.inputs.ipAddresses ?? []).toEqual(spec.ipAddresses);
    }
    for (const ca of CA_IDS) {
      const cert = find(TLS.selfSigned, `kcp-${ca}`);
      expect(cert.inputs).toMatchObject({ isCaCertificate: true, validityPeriodHours: 87600 });
      expect(plain(cert.inputs.privateKeyPem)).toBe(pem("RSA PRIVATE KEY", `kcp-${ca}-key`));
    }
  });

  it("passes every private key into resources as a secret input", async () => {
    await issue();
    const keyInputs = registrations.flatMap((r) =>
      Object.entries(r.inputs)
        .filter(([k]) => /privatekeypem/i.test(k))
        .map(([k, v]) => [`${r.name}.${k}`, v] as const),
    );
    expect(keyInputs.length).toBe(CA_IDS.length + 2 * LEAVES.length);
    for (const [where, value] of keyInputs) expect([where, isSecretInput(value)]).toEqual([where, true]);
  });

  it("returns every *.key file as a secret Output and certificates in the clear", async () => {
    const pki = await issue();
    const keys = pki.files.filter((f) => f.endsWith(".key"));
    expect(keys).toEqual(
      expect.arrayContaining<PkiFile>([
        "ca.key",
        "sa.key",
        "apiserver.key",
        "etcd-peer.key",
        "karmada-search-client.key",
      ]),
    );
    for (const file of pki.files)
      expect([file, await pulumi.isSecret(pki.file(file))]).toEqual([file, file.endsWith(".key")]);
    for (const leaf of Object.values(pki.leaves)) expect(await pulumi.isSecret(leaf.keyPem)).toBe(true);
    expect(await unwrap(pki.file("ca.crt"))).toBe(pem("CERTIFICATE", "kcp-karmada-ca"));
    expect(await unwrap(pki.file("sa.pub"))).toBe(pem("PUBLIC KEY", "kcp-sa-key"));
    expect(await unwrap(pki.notAfter["apiserver"])).toBe("2026-01-01T00:00:00Z/kcp-apiserver-cert");
    expect(() => pki.file("front-proxy-ca.key" as PkiFile)).not.toThrow();
  });

  it("gives a replacementTrigger to leaf keys and certificates only", async () => {
    const pki = await issue();
    for (const spec of LEAVES) {
      const expected = spec.rotationSlot
        ? slotRotationTrigger(spec.rotationSlot, spec.validityHours, NOW)
        : rotationTrigger({ validityHours: spec.validityHours, nowMs: NOW });
      expect(triggers.get(`${TLS.signed}::kcp-${spec.id}-cert`)).toBe(expected);
      expect(triggers.get(`${TLS.key}::kcp-${spec.id}-key`)).toBe(expected);
      expect(pki.leaves[spec.id].rotationTrigger).toBe(expected);
    }
    for (const ca of CA_IDS) {
      expect(triggers.get(`${TLS.selfSigned}::kcp-${ca}`)).toBeUndefined();
      expect(triggers.get(`${TLS.key}::kcp-${ca}-key`)).toBeUndefined();
    }
    expect(triggers.get(`${TLS.key}::kcp-sa-key`)).toBeUndefined();
  });

  it("a generation bump changes every leaf trigger but the provider slots', and leaves CA and service-account inputs identical", async () => {
    const bumped = LEAVES.filter((l) => !l.rotationSlot);
    const slots = LEAVES.filter((l) => l.rotationSlot);
    expect(slots.map((l) => l.id)).toEqual(["provider-a", "provider-b"]);
    const snapshot = () => ({
      leafTriggers: bumped.map((l) => triggers.get(`${TLS.signed}::kcp-${l.id}-cert`)),
      slotTriggers: slots.map((l) => triggers.get(`${TLS.signed}::kcp-${l.id}-cert`)),
      stable: registrations
        .filter(
          (r) =>
            r.type === TLS.selfSigned ||
            (r.type === TLS.key && !LEAVES.some((l) => r.name === `kcp-${l.id}-key`)),
        )
        .map((r) => ({ name: r.name, inputs: r.inputs, trigger: triggers.get(`${r.type}::${r.name}`) })),
    });
    await issue({ rotation: { now: () => NOW, generation: 0 } });
    const before = snapshot();
    registrations = [];
    triggers.clear();
    await issue({ rotation: { now: () => NOW, generation: 1 } });
    const after = snapshot();
    expect(after.stable).toEqual(before.stable);
    expect(after.stable.map((r) => r.name).sort()).toEqual(
      [...CA_IDS.flatMap((c) => [`kcp-${c}`, `kcp-${c}-key`]), "kcp-sa-key"].sort(),
    );
    after.leafTriggers.forEach((t, i) => expect(t).not.toEqual(before.leafTriggers[i]));
    expect(after.slotTriggers).toEqual(before.slotTriggers);
  });

  it("hands out the provider slot not renewed in the current window", async () => {
    const window = slotWindowHours(DEFAULT_LEAF_VALIDITY_HOURS) * 3_600_000;
    const even = Math.ceil(NOW / window / 2) * 2 * window; // the first moment of an even window
    expect((await issue({ rotation: { now: () => even } })).providerSlot).toBe("b");
    expect((await issue({ rotation: { now: () => even + window } })).providerSlot).toBe("a");
    expect(
      (await issue({ certificates: LEAVES.filter((l) => !l.rotationSlot) })).providerSlot,
    ).toBeUndefined();
  });

  it("uses supplied CAs without creating them; their keys become secrets", async () => {
    const pki = await issue({
      cas: { "karmada-ca": { certPem: pem("CERTIFICATE", "byo"), keyPem: pem("RSA PRIVATE KEY", "byo") } },
    });
    expect(registrations.some((r) => r.name === "kcp-karmada-ca" || r.name === "kcp-karmada-ca-key")).toBe(
      false,
    );
    const apiserver = find(TLS.signed, "kcp-apiserver-cert");
    expect(apiserver.inputs.caCertPem).toBe(pem("CERTIFICATE", "byo"));
    expect(isSecretInput(apiserver.inputs.caPrivateKeyPem)).toBe(true);
    expect(await pulumi.isSecret(pki.file("ca.key"))).toBe(true);
    expect(find(TLS.signed, "kcp-etcd-client-cert").inputs.caCertPem).toBe(pem("CERTIFICATE", "kcp-etcd-ca"));
  });

  it("creates only the CAs the leaves need", async () => {
    const pki = await issue({
      certificates: LEAVES.filter((l) => l.signer === "etcd-ca"),
      serviceAccountKey: false,
    });
    expect(registrations.filter((r) => r.type === TLS.selfSigned).map((r) => r.name)).toEqual([
      "kcp-etcd-ca",
    ]);
    expect(() => pki.file("ca.crt")).toThrow('PKI file "ca.crt" was not issued');
    expect(() => pki.file("sa.key")).toThrow(/was not issued/);
  });
});

describe("issuePki validation happens before any registration", () => {
  const rejects = async (args: Partial<IssuePkiArgs>) => {
    const error = configError(() =>
      issuePki({ name: "kcp", parent: new Owner("kcp"), certificates: LEAVES, ...args }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(registrations.filter((r) => r.type.startsWith("tls:"))).toEqual([]);
    return error;
  };

  it("a misspelled allowed use", async () => {
    const bad = LEAVES.map((l, i) =>
      i === 3 ? { ...l, allowedUses: [...l.allowedUses, "serverAuth"] } : l,
    ) as CertSpec[];
    const error = await rejects({ certificates: bad });
    expect(error.field).toBe(`certificates[3].allowedUses[${LEAVES[3].allowedUses.length}]`);
    expect(error.problem).toBe('unknown usage "serverAuth"');
  });

  it("duplicate ids, shared files, ids that shadow CAs, several organizations", async () => {
    expect((await rejects({ certificates: [LEAVES[0], LEAVES[0]] })).field).toBe("certificates[1]");
    const sharing = { ...LEAVES[1], id: "other", files: LEAVES[0].files };
    expect((await rejects({ certificates: [LEAVES[0], sharing] })).message).toBe(
      'invalid certificates[1].files.cert: "apiserver.crt" is already written by "apiserver" (allowed: a file of its own)',
    );
    expect((await rejects({ certificates: [{ ...LEAVES[0], id: "etcd-ca" }] })).field).toBe(
      "certificates[0].id",
    );
    expect(
      (
        await rejects({
          certificates: [{ ...LEAVES[0], files: { cert: "ca.crt", key: "x.key" as PkiFile } }],
        })
      ).problem,
    ).toBe('"ca.crt" is already written by a CA or the service-account key');
    expect((await rejects({ certificates: [{ ...LEAVES[0], organizations: ["a", "b"] }] })).allowed).toBe(
      "at most one (tls provider limit)",
    );
  });

  it("a supplied CA without a key when leaves need it signed", async () => {
    const error = await rejects({ cas: { "etcd-ca": { certPem: "pem" } } });
    expect(error.message).toBe('invalid cas.etcd-ca.keyPem: is required to sign "etcd-client"');
  });

  it("bad validity and rotation settings", async () => {
    expect((await rejects({ caValidityHours: 0 })).field).toBe("caValidityHours");
    expect((await rejects({ certificates: [{ ...LEAVES[0], validityHours: 1 }] })).field).toBe(
      "certificates[0].validityHours",
    );
    expect((await rejects({ rotation: { renewBeforeHours: 9000 } })).field).toBe("rotation.renewBeforeHours");
    expect((await rejects({ rotation: { generation: -1 } })).field).toBe("rotation.generation");
  });
});
