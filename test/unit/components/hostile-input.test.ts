/**
 * Careless and hostile input, by class: each is refused before anything registers — the component
 * itself included — with every problem reported at once, each naming its full field path.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@pulumi/kubernetes";
import { Addon, AddonArgs } from "../../../components/addon";
import { EtcdCluster, EtcdClusterArgs } from "../../../components/etcdCluster";
import { KarmadaControlPlane, KarmadaControlPlaneArgs } from "../../../components/karmadaControlPlane";
import { MemberRegistration, MemberRegistrationArgs } from "../../../components/memberRegistration";
import { EtcdHostsArgs } from "../../../lib/etcd/hosts/config";
import { ConfigError, configErrorsOf } from "../../../lib/validation/errors";
import { FIXTURE_CRD_SOURCE } from "../../support/estate";
import { generateCa, openssl } from "../../../devkit/pki";
import { recordResources, Registration } from "../../support/mocks";
import { TEST_SSH_KEY } from "../../../devkit/sshKey";
import { simulateControllers } from "../members/simulate";
import { externalEtcdCredentials } from "../../../devkit/pki";

const scratch = mkdtempSync(join(tmpdir(), "hostile-"));
const goodCa = generateCa(join(scratch, "good"), "good-ca");
const otherCa = generateCa(join(scratch, "other"), "other-ca");

/** A self-signed certificate that is not a CA (basicConstraints CA:FALSE). */
function leafCertificate(): { certPem: string; keyPem: string } {
  const dir = join(scratch, "leaf");
  execFileSync("mkdir", ["-p", dir]);
  openssl(
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj", "/CN=leaf"],
      ...["-keyout", "leaf.key", "-out", "leaf.crt", "-addext", "basicConstraints=critical,CA:FALSE"],
    ],
    { cwd: dir },
  );
  const read = (f: string) => execFileSync("cat", [join(dir, f)], { encoding: "utf8" });
  return { certPem: read("leaf.crt"), keyPem: read("leaf.key") };
}

interface Outcome {
  readonly error?: Error;
  readonly records: Registration[];
}

/** Runs `build` under recording mocks; returns the error it threw and what was registered. */
function attempt(build: (host: k8s.Provider) => void): Outcome {
  const records = recordResources();
  // valid members registered before the failing one read token Secrets: the stand-in controllers fill them
  simulateControllers();
  const host = new k8s.Provider("host", { kubeconfig: "x", clusterIdentifier: "host" });
  try {
    build(host);
    return { records };
  } catch (error) {
    return { error: error as Error, records };
  }
}

const externalEtcd: EtcdClusterArgs = {
  mode: "external",
  external: {
    endpoints: ["https://10.0.0.1:2379"],
    ...externalEtcdCredentials(),
  },
};

/** One etcd host (supervisor, binaries already there) with `extra` hosts settings. */
const etcdOnHosts = (extra: Partial<EtcdHostsArgs>): EtcdClusterArgs => ({
  mode: "hosts",
  hosts: {
    hosts: [{ name: "etcd1", address: "10.0.0.11", privateKey: TEST_SSH_KEY }],
    serviceManager: "supervisor",
    artifact: { path: "/opt/etcd" },
    ...extra,
  },
});

/** A control plane with `args` (on an external etcd, so only the control plane can fail). */
function controlPlane(args: Partial<KarmadaControlPlaneArgs>): Outcome {
  return attempt((host) => {
    const etcd = new EtcdCluster("etcd", externalEtcd);
    new KarmadaControlPlane("karmada", { crds: FIXTURE_CRD_SOURCE, etcd, ...args }, { provider: host });
  });
}

/** The fields of every ConfigError the outcome carries. */
const fields = (outcome: Outcome) => configErrorsOf(outcome.error).map((e) => e.field);

/** Nothing of component `type` — neither the component nor a child — reached the engine. */
function expectNothingOf(outcome: Outcome, type: string): void {
  expect(outcome.error).toBeInstanceOf(ConfigError);
  expect(
    outcome.records.filter((r) => r.type === `karmada:index:${type}` || r.urn.includes(`${type}$`)),
  ).toEqual([]);
}

describe("classes of bad input are refused before anything registers", () => {
  it.each<[string, Partial<KarmadaControlPlaneArgs>, string, RegExp]>([
    [
      "an owned flag in extraArgs",
      { components: { apiServer: { extraArgs: { "etcd-servers": "http://evil:2379" } } } },
      'components.apiServer.extraArgs["etcd-servers"]',
      /set by the control plane/,
    ],
    [
      "a bring-your-own CA that is not a CA",
      { pki: { karmadaCa: leafCertificate() } },
      "pki.karmadaCa.certPem",
      /not a CA/i,
    ],
    [
      "a CA key that does not match its certificate",
      { pki: { karmadaCa: { certPem: goodCa.certPem, keyPem: otherCa.keyPem } } },
      "pki.karmadaCa.keyPem",
      /does not belong to the certificate .*their public keys differ/,
    ],
    [
      "leaves that outlive the CA brought for them",
      { pki: { karmadaCa: goodCa, leafValidityHours: 24 * 365 * 20 } },
      "pki.karmadaCa.certPem",
      /leafValidityHours/,
    ],
    [
      "leaves that outlive a generated CA",
      { pki: { caValidityHours: 1000, leafValidityHours: 2000 } },
      "pki.leafValidityHours",
      /2000/,
    ],
    [
      "a CRD source with a key of another kind",
      { crds: { kind: "release", path: "/tmp/crds" } as never },
      "crds.path",
      /does not apply to kind "release"/,
    ],
    [
      "a CRD path that does not exist",
      { crds: { kind: "path", path: join(scratch, "missing.tar.gz") } },
      "crds.path",
      /does not exist/,
    ],
    [
      "feature gates given as a string",
      { featureGates: "Failover=true" as never },
      "featureGates",
      /is a string; give a map .*"Failover":true/,
    ],
    [
      "an SSH key that is not a private key",
      {
        mode: "hosts",
        hosts: {
          machines: [{ name: "cp1", address: "10.0.0.5", privateKey: "ssh-ed25519 AAAAC3Nza user@host" }],
          binaries: { path: "/opt/karmada/bin" },
        },
      },
      "hosts.machines[0].privateKey",
      /public key/i,
    ],
  ])("%s", (_what, args, field, message) => {
    const outcome = controlPlane(args);
    expectNothingOf(outcome, "KarmadaControlPlane");
    expect(fields(outcome)).toContain(field);
    const error = configErrorsOf(outcome.error).find((e) => e.field === field)!;
    expect(error.message).toMatch(message);
  });

  it("a CRD tarball whose sha256 does not match is refused synchronously", () => {
    const tarball = join(scratch, "crds.tar.gz");
    writeFileSync(tarball, "not really a tarball");
    const outcome = controlPlane({ crds: { kind: "path", path: tarball, sha256: "0".repeat(64) } });
    expectNothingOf(outcome, "KarmadaControlPlane");
    expect(fields(outcome)).toEqual(["crds.sha256"]);
  });

  it("every problem of one control plane is reported together, each with its field", () => {
    const outcome = controlPlane({
      namespace: "Bad_NS",
      components: {
        scheduler: { replicas: -1, extraArgs: { kubeconfig: "/tmp/x" } },
        apiServer: { image: "not an image" },
      },
      apiServer: { extraSans: ["ok.example.com", "bad_san!"] },
      pki: { leafValidityHours: 1 },
    });
    expectNothingOf(outcome, "KarmadaControlPlane");
    expect(outcome.error!.name).toBe("ConfigErrors");
    expect(fields(outcome).sort()).toEqual(
      [
        "namespace",
        "components.scheduler.replicas",
        'components.scheduler.extraArgs["kubeconfig"]',
        "components.apiServer.image",
        "apiServer.extraSans[1]",
        "pki.leafValidityHours",
      ].sort(),
    );
    expect(outcome.error!.message).toMatch(/^KarmadaControlPlane "karmada": 6 invalid settings:/);
  });

  it("every problem of a control plane on hosts is reported together: machines, runner, pod-only settings", () => {
    const outcome = controlPlane({
      mode: "hosts",
      components: { scheduler: { replicas: 2 } },
      hosts: {
        machines: [
          { name: "cp1", address: "10.0.0.300", privateKey: TEST_SSH_KEY },
          { name: "cp2", address: "10.0.0.6", privateKey: "not a key" },
        ],
        binaries: { path: "/opt/karmada/bin" },
        serviceManager: "cron" as never,
        healthTimeoutSeconds: 1,
      },
      apiServer: { externalEndpoint: "karmada.example.com" },
    });
    expectNothingOf(outcome, "KarmadaControlPlane");
    expect(fields(outcome).sort()).toEqual(
      [
        "components.scheduler.replicas",
        "hosts.machines[0].address",
        "hosts.machines[1].privateKey",
        "hosts.serviceManager",
        "hosts.healthTimeoutSeconds",
      ].sort(),
    );
  });

  it("an etcd whose mode sections disagree, with an out-of-range cron, is refused with both fields", () => {
    const outcome = attempt((host) => {
      new EtcdCluster(
        "etcd",
        {
          mode: "inCluster",
          inCluster: { backup: { schedule: "0 25 * * *" } },
          external: externalEtcd.external,
        },
        { provider: host },
      );
    });
    expectNothingOf(outcome, "EtcdCluster");
    expect(fields(outcome).sort()).toEqual(["external", "inCluster.backup.schedule"]);
  });

  it("an etcd restore source that is not a safe absolute path is refused before any host is touched", () => {
    const outcome = attempt(() => {
      new EtcdCluster(
        "etcd",
        etcdOnHosts({ restoreFrom: { path: "/var/backups/etcd/../../../etc/shadow" } }),
      );
    });
    expectNothingOf(outcome, "EtcdCluster");
    expect(fields(outcome)).toEqual(["hosts.restoreFrom.path"]);
  });

  it("etcd directories the scripts make private cannot be shared system directories", () => {
    const outcome = attempt(() => {
      new EtcdCluster("etcd", etcdOnHosts({ dataDir: "/var/lib", backup: { dir: "/tmp/" } }));
    });
    expectNothingOf(outcome, "EtcdCluster");
    expect(fields(outcome).sort()).toEqual(["hosts.backup.dir", "hosts.dataDir"]);
    expect(outcome.error!.message).toMatch(/"\/tmp" is a shared system directory/);
  });
});

describe("references between components are checked", () => {
  const member = (args: Partial<MemberRegistrationArgs>, cp?: KarmadaControlPlane) =>
    new MemberRegistration(
      args.clusterName ?? "member1",
      {
        clusterName: "member1",
        mode: "Push",
        apiEndpoint: "https://10.0.0.20:6443",
        controlPlane: cp!,
        ...args,
      },
      { provider: new k8s.Provider(`m-${args.clusterName ?? "member1"}`, { kubeconfig: "x" }) },
    );

  it("a controlPlane that is not a KarmadaControlPlane is a clear error, and nothing registers", () => {
    const outcome = attempt(() => member({ controlPlane: { apiEndpoint: "https://x" } as never }));
    expectNothingOf(outcome, "MemberRegistration");
    const error = configErrorsOf(outcome.error).find((e) => e.field === "controlPlane")!;
    expect(error.message).toMatch(/is not a KarmadaControlPlane \(got a plain object\)/);
  });

  it("an etcd that is not an EtcdCluster is a clear error", () => {
    const outcome = attempt((host) => {
      new KarmadaControlPlane("karmada", { etcd: { clientUrls: [] } as never }, { provider: host });
    });
    expectNothingOf(outcome, "KarmadaControlPlane");
    expect(fields(outcome)).toContain("etcd");
  });

  it("two registrations of one cluster name at one control plane: the second fails and registers nothing", () => {
    let cp: KarmadaControlPlane | undefined;
    const outcome = attempt((host) => {
      const etcd = new EtcdCluster("etcd", externalEtcd);
      cp = new KarmadaControlPlane("karmada", { crds: FIXTURE_CRD_SOURCE, etcd }, { provider: host });
      member({ clusterName: "dup" }, cp);
      new MemberRegistration(
        "dup-again",
        { clusterName: "dup", mode: "Push", apiEndpoint: "https://10.0.0.21:6443", controlPlane: cp },
        { provider: new k8s.Provider("m-dup-again", { kubeconfig: "x" }) },
      );
    });
    expect(fields(outcome)).toEqual(["clusterName"]);
    expect(outcome.error!.message).toMatch(/"dup" is already registered with "karmada" by "dup"/);
    expect(outcome.records.filter((r) => r.name === "dup-again")).toEqual([]);
  });

  it("bootstrap-token pull registration against a control plane without bootstrap objects", () => {
    const outcome = attempt((host) => {
      const etcd = new EtcdCluster("etcd", externalEtcd);
      const cp = new KarmadaControlPlane(
        "karmada",
        { crds: FIXTURE_CRD_SOURCE, etcd, pullModeBootstrap: false },
        { provider: host },
      );
      member({ clusterName: "pulled", mode: "Pull", pull: { identity: "bootstrapToken" } }, cp);
    });
    expectNothingOf(outcome, "MemberRegistration");
    expect(fields(outcome)).toEqual(["pull.identity"]);
  });

  it("a scheduler estimator for a member the program never registers, and one without a kubeconfig", () => {
    const outcome = attempt((host) => {
      const etcd = new EtcdCluster("etcd", externalEtcd);
      const cp = new KarmadaControlPlane("karmada", { crds: FIXTURE_CRD_SOURCE, etcd }, { provider: host });
      member({ clusterName: "member1" }, cp);
      const args: AddonArgs = {
        kind: "schedulerEstimator",
        controlPlane: cp,
        members: [{ clusterName: "member1" }, { clusterName: "ghost", kubeconfig: "x" }],
      };
      new Addon("estimator", args);
    });
    expectNothingOf(outcome, "Addon");
    expect(fields(outcome).sort()).toEqual(["members[0].kubeconfig", "members[1].clusterName"]);
    const ghost = configErrorsOf(outcome.error).find((e) => e.field === "members[1].clusterName")!;
    expect(ghost.message).toMatch(/"ghost" is not registered with "karmada".*allowed: member1/);
  });
});

describe("counterexamples the property test found against the real kube-apiserver stay fixed", () => {
  it.each<[string, Partial<KarmadaControlPlaneArgs>, string]>([
    [
      "a load balancer class that is not a qualified name",
      { apiServer: { serviceType: "LoadBalancer", loadBalancerClass: "a b" } },
      "apiServer.loadBalancerClass",
    ],
    [
      "a load balancer class the Service type would drop",
      { apiServer: { serviceType: "ClusterIP", loadBalancerClass: "example.com/lb" } },
      "apiServer.loadBalancerClass",
    ],
    [
      "replicas beyond int32",
      { components: { scheduler: { replicas: 2 ** 31 } } },
      "components.scheduler.replicas",
    ],
    [
      "an image tag with a space",
      { images: { tags: { "karmada-scheduler": "v1 beta" } } },
      'images.tags["karmada-scheduler"]',
    ],
    [
      "an image repository with a space",
      { images: { repositories: { etcd: "a b" } } },
      'images.repositories["etcd"]',
    ],
    [
      "a webhook endpoint that is not a string",
      {
        mode: "hosts",
        hosts: {
          machines: [{ name: "cp1", address: "10.0.0.5", privateKey: TEST_SSH_KEY }],
          binaries: { path: "/opt/karmada/bin" },
          webhookEndpoint: -1 as never,
        },
      },
      "hosts.webhookEndpoint",
    ],
  ])("%s", (_what, args, field) => {
    const outcome = controlPlane(args);
    expectNothingOf(outcome, "KarmadaControlPlane");
    expect(fields(outcome)).toContain(field);
  });

  it("an IPv6 control-plane host renders its service flags (brackets need no quoting)", async () => {
    const outcome = controlPlane({
      mode: "hosts",
      hosts: {
        machines: [{ name: "cp1", address: "fd00::5", privateKey: TEST_SSH_KEY }],
        binaries: { path: "/opt/karmada/bin" },
        serviceManager: "supervisor",
      },
    });
    expect(outcome.error).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const commands = outcome.records.filter((r) => r.type.startsWith("command:remote:"));
    expect(commands.map((c) => c.name)).toContain("karmada-cp1-karmada-apiserver");
  });

  it("an etcd image or backup tools image with a space (pods would be refused at creation)", () => {
    const outcome = attempt(
      (host) =>
        new EtcdCluster(
          "etcd",
          { inCluster: { image: " nginx", backup: { toolsImage: "busybox latest" } } },
          { provider: host },
        ),
    );
    expectNothingOf(outcome, "EtcdCluster");
    expect(fields(outcome).sort()).toEqual(["inCluster.backup.toolsImage", "inCluster.image"]);
  });

  it("hosts-mode binaries given as null", () => {
    const outcome = controlPlane({
      mode: "hosts",
      hosts: {
        machines: [{ name: "cp1", address: "10.0.0.5", privateKey: TEST_SSH_KEY }],
        binaries: null as never,
      },
    });
    expectNothingOf(outcome, "KarmadaControlPlane");
    expect(fields(outcome)).toContain("hosts.binaries");
  });

  it("an estimator for a cluster whose name would overflow its object names, and replicas beyond int32", () => {
    const outcome = attempt((host) => {
      const etcd = new EtcdCluster("etcd", externalEtcd);
      const cp = new KarmadaControlPlane("karmada", { crds: FIXTURE_CRD_SOURCE, etcd }, { provider: host });
      new Addon("estimator", {
        kind: "schedulerEstimator",
        controlPlane: cp,
        overrides: { replicas: 2 ** 31 },
        members: [{ clusterName: "x".repeat(36), kubeconfig: "k" }],
      });
    });
    expectNothingOf(outcome, "Addon");
    expect(fields(outcome)).toEqual(expect.arrayContaining(["overrides.replicas", "members[0].clusterName"]));
    expect(outcome.error!.message).toMatch(/too long for the estimator's object names/);
  });

  it("an in-cluster etcd named with a leading digit (Service names are DNS-1035)", () => {
    const outcome = attempt(
      (host) => new EtcdCluster("etcd", { inCluster: { name: "1etcd" } }, { provider: host }),
    );
    expectNothingOf(outcome, "EtcdCluster");
    expect(fields(outcome)).toEqual(["inCluster.name"]);
  });
});
