import { RELEASES } from "../../../lib/catalog/releases";
import { ControlPlaneConfig } from "../../../lib/controlplane/config";
import { hostsModeControlPlaneConfig, isEndpointAddress } from "../../../lib/controlplane/hosts";
import { ControlPlaneHostsConfig } from "../../../lib/controlplane/hosts/config";
import { ConfigError } from "../../../lib/validation/errors";
import { SSH_KEY, hostsConfig, resolveBoth } from "./hostsFixtures";

const EXTERNAL: ControlPlaneConfig = { apiServer: { externalEndpoint: "karmada.example.com" } };

function refused(run: () => unknown, message: string): void {
  expect(run).toThrow(ConfigError);
  expect(run).toThrow(message);
}

describe("hosts mode: control-plane settings it refuses or defaults", () => {
  test.each<[string, ControlPlaneConfig, ControlPlaneHostsConfig | undefined, string]>([
    ["no hosts section", EXTERNAL, undefined, "invalid hosts: is required in hosts mode"],
    [
      "an empty machine list",
      EXTERNAL,
      hostsConfig({ machines: [] }),
      "invalid hosts.machines: must list at least one host",
    ],
    [
      "pod replicas",
      { ...EXTERNAL, components: { scheduler: { replicas: 2 } } },
      hostsConfig(),
      "invalid components.scheduler.replicas: does not apply in hosts mode: one process runs on each of hosts.machines",
    ],
    [
      "an image override",
      { ...EXTERNAL, components: { webhook: { image: "x/y:1" } } },
      hostsConfig(),
      "invalid components.webhook.image: does not apply in hosts mode",
    ],
    [
      "a Service type",
      { apiServer: { externalEndpoint: "k.example.com", serviceType: "LoadBalancer" } },
      hostsConfig(),
      "invalid apiServer.serviceType: does not apply in hosts mode: there is no host-cluster Service",
    ],
    [
      "registry rewriting",
      { ...EXTERNAL, images: { registry: "r.local" } },
      hostsConfig(),
      "invalid images: does not apply in hosts mode",
    ],
    [
      "two machines without an external endpoint",
      {},
      hostsConfig(),
      "invalid apiServer.externalEndpoint: is required with 2 control-plane hosts: clients and members need one address in front of them",
    ],
    [
      "a bad address of the only machine",
      {},
      hostsConfig({ machines: [{ name: "cp1", address: "10.0.0.300", privateKey: SSH_KEY }] }),
      'invalid hosts.machines[0].address: "10.0.0.300" is not an IP address or DNS name',
    ],
  ])("%s", (_what, config, hosts, message) =>
    refused(() => hostsModeControlPlaneConfig(config, hosts), message),
  );

  test("one machine: the external endpoint defaults to its address; user settings pass through", () => {
    const adapted = hostsModeControlPlaneConfig(
      { featureGates: { Failover: true }, apiServer: { extraSans: ["10.9.9.9"] } },
      hostsConfig({ machines: [{ name: "cp1", address: "10.0.0.5", privateKey: SSH_KEY }] }),
    );
    expect(adapted.apiServer).toEqual({ extraSans: ["10.9.9.9"], externalEndpoint: "10.0.0.5" });
    expect(adapted.featureGates).toEqual({ Failover: true });
  });
});

describe("hosts mode: the hosts section", () => {
  const bad: [string, Partial<ControlPlaneHostsConfig>, string][] = [
    [
      "an unknown service manager",
      { serviceManager: "openrc" as never },
      'invalid hosts.serviceManager: "openrc" is not a service manager (allowed: systemd, supervisor)',
    ],
    [
      "systemd with a host root",
      {
        serviceManager: "systemd",
        machines: [{ name: "cp1", address: "10.0.0.5", privateKey: SSH_KEY, root: "/tmp/cp1" }],
      },
      'invalid hosts.machines[0].root: systemd only sees units under "/", not "/tmp/cp1"',
    ],
    [
      "no binary source",
      { binaries: undefined },
      "invalid hosts.binaries: is required: Karmada publishes no server binaries, so kube-apiserver has no default source",
    ],
    [
      "a mirror URL without checksum",
      { binaries: { url: "https://mirror.local/karmada.tar.gz" } },
      "invalid hosts.binaries.sha256: is required to verify the download of https://mirror.local/karmada.tar.gz",
    ],
    [
      "a Kubernetes version without v",
      { kubernetesVersion: "1.35.2" },
      'invalid hosts.kubernetesVersion: "1.35.2" is not a release version (allowed: vX.Y.Z)',
    ],
    [
      "a component version 'latest'",
      { components: { scheduler: { version: "latest" } } },
      'invalid hosts.components.scheduler.version: "latest" is not a release version',
    ],
    [
      "an unknown component",
      { components: { schedular: {} } as never },
      'invalid hosts.components.schedular: unknown component "schedular"',
    ],
    [
      "a disabled component",
      { components: { search: { version: "v1.18.2" } } },
      "invalid hosts.components.search: karmada-search is not enabled (allowed: enable it in components.search first)",
    ],
    [
      "a bad webhook endpoint",
      { webhookEndpoint: "hooks.example.com:99999" },
      "invalid hosts.webhookEndpoint: 99999 is not a port",
    ],
    [
      "a bad API front",
      { apiServiceHosts: { aggregatedApiserver: "not a host" } },
      'invalid hosts.apiServiceHosts.aggregatedApiserver: "not a host" is not a host name or IP address',
    ],
    [
      "a one-second health timeout",
      { healthTimeoutSeconds: 1 },
      "invalid hosts.healthTimeoutSeconds: 1 is out of range (allowed: an integer 5–3600)",
    ],
    [
      "a negative API server drain",
      { apiServerDrainSeconds: -1 },
      "invalid hosts.apiServerDrainSeconds: -1 is out of range (allowed: an integer 0–120)",
    ],
    [
      "an API server drain of minutes",
      { apiServerDrainSeconds: 600 },
      "invalid hosts.apiServerDrainSeconds: 600 is out of range (allowed: an integer 0–120)",
    ],
    [
      "a relative bin dir",
      { binDir: "usr/bin" },
      'invalid hosts.binDir: "usr/bin" is not a safe absolute path',
    ],
    [
      "a machine listed twice",
      {
        machines: [
          { name: "cp1", address: "10.0.0.5", privateKey: SSH_KEY },
          { name: "cp2", address: "10.0.0.5", privateKey: SSH_KEY },
        ],
      },
      'invalid hosts.machines[1].address: host "cp2" is listed twice',
    ],
    [
      "loopback machines without a front for the Cluster API",
      { machines: [{ name: "cp1", address: "127.0.6.2", privateKey: SSH_KEY }] },
      'invalid hosts.apiServiceHosts.aggregatedApiserver: is required: host "cp1" has address "127.0.6.2", which Kubernetes does not accept in Endpoints (allowed: a DNS name or IP forwarding port 443 to port 7443 of the hosts)',
    ],
    [
      "machines known by DNS name without a front",
      { machines: [{ name: "cp1", address: "cp1.example.com", privateKey: SSH_KEY }] },
      'invalid hosts.apiServiceHosts.aggregatedApiserver: is required: host "cp1" has address "cp1.example.com"',
    ],
  ];
  test.each(bad)("refuses %s", (_what, over, message) =>
    refused(() => resolveBoth(EXTERNAL, hostsConfig(over)), message),
  );

  test("refuses fronting some aggregated APIs but not others (routing is all or nothing)", () =>
    refused(
      () =>
        resolveBoth(
          { ...EXTERNAL, components: { search: { enabled: true } } },
          hostsConfig({ apiServiceHosts: { aggregatedApiserver: "agg.example.com" } }),
        ),
      "invalid hosts.apiServiceHosts: fronts aggregatedApiserver but not search: karmada-apiserver routes either every aggregated API to Endpoints or none (allowed: a front for every enabled aggregated API, or for none)",
    ));

  test("refuses extra flags that would need shell quoting (hosts pass them verbatim)", () =>
    refused(
      () => resolveBoth({ ...EXTERNAL, components: { scheduler: { extraArgs: { "kube-api-qps": "1 0" } } } }),
      'invalid components.scheduler.extraArgs["kube-api-qps"]: "1 0" needs shell quoting, which hosts mode does not do',
    ));

  test("defaults: versions from the catalog pairing, webhook behind the external endpoint, Endpoints backends", () => {
    const { cp, hs } = resolveBoth({ ...EXTERNAL, components: { descheduler: { enabled: true } } });
    const release = RELEASES[0];
    expect(hs.serviceManager).toBe("supervisor");
    expect(hs.components).toEqual([
      "karmada-apiserver",
      "kube-controller-manager",
      "karmada-aggregated-apiserver",
      "karmada-controller-manager",
      "karmada-scheduler",
      "karmada-webhook",
      "karmada-descheduler",
    ]);
    expect(hs.binaries["karmada-apiserver"]).toMatchObject({
      file: "kube-apiserver",
      family: "kubernetes",
      version: release.kubernetesVersion,
    });
    expect(hs.binaries["kube-controller-manager"]?.version).toBe(release.kubernetesVersion);
    expect(hs.binaries["karmada-scheduler"]).toMatchObject({
      file: "karmada-scheduler",
      family: "karmada",
      version: cp.release.version,
    });
    expect(hs.binaries["karmada-scheduler"]?.artifact).toEqual({ kind: "path", path: "/opt/karmada/bin" });
    expect(hs.webhook).toEqual({ host: "karmada.example.com", port: 8443 });
    expect(hs.apiServiceHosts).toEqual({});
    expect(hs.aggregatorRouting).toBe(true);
    expect(hs.healthTimeoutSeconds).toBe(120);
    expect(hs.paths).toMatchObject({ binDir: "/usr/local/bin", configDir: "/etc/karmada" });
  });

  test("a per-component override changes that component's version and source only", () => {
    const { hs } = resolveBoth(
      EXTERNAL,
      hostsConfig({
        kubernetesVersion: "v1.35.3",
        components: {
          scheduler: {
            version: "v1.18.3",
            binaries: { url: "https://mirror.local/s.tar.gz", sha256: "a".repeat(64) },
          },
        },
      }),
    );
    expect(hs.binaries["karmada-scheduler"]).toMatchObject({
      version: "v1.18.3",
      artifact: { kind: "url", url: "https://mirror.local/s.tar.gz", sha256: "a".repeat(64) },
    });
    expect(hs.binaries["karmada-controller-manager"]).toMatchObject({
      version: "v1.18.2",
      artifact: { kind: "path" },
    });
    expect(hs.binaries["karmada-apiserver"]?.version).toBe("v1.35.3");
  });

  test("webhook endpoint: a bare host gets the webhook port, host:port is kept", () => {
    expect(resolveBoth(EXTERNAL, hostsConfig({ webhookEndpoint: "hooks.example.com" })).hs.webhook).toEqual({
      host: "hooks.example.com",
      port: 8443,
    });
    expect(resolveBoth(EXTERNAL, hostsConfig({ webhookEndpoint: "10.0.0.9:9443" })).hs.webhook).toEqual({
      host: "10.0.0.9",
      port: 9443,
    });
  });

  test("loopback or DNS-named machines work with a front for each enabled aggregated API", () => {
    const { hs } = resolveBoth(
      { apiServer: { externalEndpoint: "127.0.6.100:5443" } },
      hostsConfig({
        machines: [{ name: "cp1", address: "127.0.6.2", privateKey: SSH_KEY }],
        apiServiceHosts: { aggregatedApiserver: "127.0.6.100" },
      }),
    );
    expect(hs.apiServiceHosts).toEqual({ aggregatedApiserver: "127.0.6.100" });
    expect(hs.aggregatorRouting).toBe(false);
  });

  test.each([
    ["10.0.0.5", true],
    ["fd00::5", true],
    ["127.0.6.2", false],
    ["169.254.1.1", false],
    ["::1", false],
    ["fe80::1", false],
    ["cp1.example.com", false],
  ])("Endpoints accept %s: %s", (address, ok) => expect(isEndpointAddress(address)).toBe(ok));
});
