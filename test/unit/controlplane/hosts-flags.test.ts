import { componentFlags, CONTAINER_PATHS } from "../../../lib/controlplane/flags";
import { ControlPlaneComponent } from "../../../lib/controlplane/flags-ports";
import {
  hostApiServerUrl,
  hostComponentCommand,
  hostsCertificates,
  hostsKarmadaApiOptions,
  hostsWebhookBaseUrl,
} from "../../../lib/controlplane/hosts";
import { karmadaApiObjects } from "../../../lib/manifests/karmada";
import { controlPlaneCertificates } from "../../../lib/pki/certificates";
import { ConfigError } from "../../../lib/validation/errors";
import { SSH_KEY, hostsConfig, resolveBoth } from "./hostsFixtures";

const flagMap = (argv: readonly string[]) =>
  new Map(argv.slice(1).map((arg) => [arg.slice(2, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]));
const names = (argv: readonly string[]) => [...flagMap(argv).keys()].sort();

describe("host command lines come from the shared flag generator", () => {
  const { cp, hs } = resolveBoth({
    apiServer: { externalEndpoint: "karmada.example.com" },
    components: {
      scheduler: { extraArgs: { "kube-api-qps": "50" } },
    },
  });
  const [cp1, cp2] = hs.machines;

  test.each(hs.components.map((c) => [c]))(
    "%s: the container's flags plus only host-specific ones, host paths, binary first",
    (component: ControlPlaneComponent) => {
      const argv = hostComponentCommand(component, cp, hs, cp1);
      expect(argv[0]).toBe(
        `/usr/local/bin/${component === "karmada-apiserver" ? "kube-apiserver" : component}`,
      );
      const container = componentFlags(component, cp, CONTAINER_PATHS);
      const hostOnly = names(argv).filter((n) => !names(["bin", ...container]).includes(n));
      const expectedExtra: Record<string, string[]> = {
        "karmada-apiserver": [
          "advertise-address",
          "enable-aggregator-routing",
          "shutdown-delay-duration",
          "shutdown-send-retry-after",
        ],
        "kube-controller-manager": ["cert-dir"],
      };
      expect(hostOnly).toEqual(expectedExtra[component] ?? []);
      for (const value of flagMap(argv).values()) {
        // every file the process reads lives in its own directory on the host
        if (value.startsWith("/etc/")) expect(value).toMatch(new RegExp(`^/etc/karmada/${component}/`));
      }
    },
  );

  test("every listener binds the host's own address, so several hosts can share one machine", () => {
    const apiserver = flagMap(hostComponentCommand("karmada-apiserver", cp, hs, cp2));
    expect(apiserver.get("bind-address")).toBe("10.0.0.6");
    expect(apiserver.get("advertise-address")).toBe("10.0.0.6");
    expect(apiserver.get("enable-aggregator-routing")).toBe("true");
    expect(apiserver.get("etcd-servers")).toBe(
      "https://10.0.1.11:2379,https://10.0.1.12:2379,https://10.0.1.13:2379",
    );
    const webhook = flagMap(hostComponentCommand("karmada-webhook", cp, hs, cp2));
    expect([
      webhook.get("bind-address"),
      webhook.get("health-probe-bind-address"),
      webhook.get("metrics-bind-address"),
    ]).toEqual(["10.0.0.6", "10.0.0.6:8000", "10.0.0.6:8082"]);
    expect(webhook.get("cert-dir")).toBe("/etc/karmada/karmada-webhook/pki");
    expect(flagMap(hostComponentCommand("kube-controller-manager", cp, hs, cp1)).get("cert-dir")).toBe(
      "/etc/karmada/kube-controller-manager/serving",
    );
  });

  test("the user's extraArgs add tunables next to the host-specific flags", () => {
    const scheduler = flagMap(hostComponentCommand("karmada-scheduler", cp, hs, cp1));
    expect(scheduler.get("metrics-bind-address")).toBe("10.0.0.5:8081");
    expect(scheduler.get("health-probe-bind-address")).toBe("10.0.0.5:10351");
    expect(scheduler.get("kube-api-qps")).toBe("50");
  });

  test("bindAllInterfaces, and hosts known by name, listen on every interface", () => {
    const all = resolveBoth(
      { apiServer: { externalEndpoint: "k.example.com" } },
      hostsConfig({ bindAllInterfaces: true }),
    );
    expect(
      flagMap(hostComponentCommand("karmada-apiserver", all.cp, all.hs, all.hs.machines[0])).get(
        "bind-address",
      ),
    ).toBe("0.0.0.0");
    const named = resolveBoth(
      { apiServer: { externalEndpoint: "k.example.com" } },
      hostsConfig({
        machines: [{ name: "cp1", address: "cp1.example.com", privateKey: SSH_KEY }],
        apiServiceHosts: { aggregatedApiserver: "agg.example.com" },
      }),
    );
    const apiserver = flagMap(
      hostComponentCommand("karmada-apiserver", named.cp, named.hs, named.hs.machines[0]),
    );
    expect(apiserver.get("bind-address")).toBe("0.0.0.0");
    expect(apiserver.has("advertise-address")).toBe(false);
  });

  test("behind a load balancer karmada-apiserver drains before it stops listening; alone it stops at once", () => {
    const drainOf = (resolved: ReturnType<typeof resolveBoth>) => {
      const flags = flagMap(
        hostComponentCommand("karmada-apiserver", resolved.cp, resolved.hs, resolved.hs.machines[0]),
      );
      return [flags.get("shutdown-delay-duration"), flags.get("shutdown-send-retry-after")];
    };
    expect(drainOf(resolveBoth({ apiServer: { externalEndpoint: "k.example.com" } }))).toEqual([
      "10s",
      "true",
    ]);
    expect(
      drainOf(
        resolveBoth(
          { apiServer: { externalEndpoint: "k.example.com" } },
          hostsConfig({ apiServerDrainSeconds: 3 }),
        ),
      ),
    ).toEqual(["3s", "true"]);
    const alone = resolveBoth(
      {},
      hostsConfig({ machines: [{ name: "cp1", address: "10.0.0.5", privateKey: SSH_KEY }] }),
    );
    expect(alone.hs.apiServerDrainSeconds).toBe(0);
    expect(drainOf(alone)).toEqual([undefined, undefined]);
    expect(
      flagMap(hostComponentCommand("karmada-scheduler", cp, hs, cp1)).has("shutdown-delay-duration"),
    ).toBe(false);
  });

  test("the drain is the library's: extraArgs may not set it", () => {
    const run = () =>
      resolveBoth({
        apiServer: { externalEndpoint: "k.example.com" },
        components: { apiServer: { extraArgs: { "shutdown-delay-duration": "30s" } } },
      });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow("components.apiServer.extraArgs");
    expect(run).toThrow("hosts.apiServerDrainSeconds");
  });

  test("components on a host talk to that host's karmada-apiserver", () => {
    expect(hostApiServerUrl(cp, cp2)).toBe("https://10.0.0.6:5443");
  });
});

describe("certificates and Karmada-side objects for hosts", () => {
  const { cp, hs } = resolveBoth({
    apiServer: { externalEndpoint: "karmada.example.com:5443", extraSans: ["10.0.0.5"] },
  });
  const base = controlPlaneCertificates(cp);
  const specs = hostsCertificates(base, hs);
  const byId = new Map(specs.map((s) => [s.id, s]));

  test("serving certificates name every host; the apiserver keeps its SANs and the VIP", () => {
    const apiserver = byId.get("apiserver")!;
    expect(apiserver.ipAddresses).toEqual(
      expect.arrayContaining(["10.0.0.5", "10.0.0.6", "127.0.0.1", "10.96.0.1"]),
    );
    expect(apiserver.ipAddresses.filter((ip) => ip === "10.0.0.5")).toHaveLength(1);
    expect(apiserver.dnsNames).toEqual(
      expect.arrayContaining(["karmada.example.com", "kubernetes.default.svc"]),
    );
    expect(byId.get("webhook")!.dnsNames).toEqual(
      expect.arrayContaining(["karmada.example.com", "karmada-webhook.karmada-system.svc"]),
    );
    expect(byId.get("webhook")!.ipAddresses).toEqual(expect.arrayContaining(["10.0.0.5", "10.0.0.6"]));
    expect(byId.get("aggregated-apiserver")!.ipAddresses).toEqual(
      expect.arrayContaining(["10.0.0.5", "10.0.0.6"]),
    );
  });

  test("client certificates are unchanged", () => {
    for (const spec of specs.filter(
      (s) => s.allowedUses.includes("client_auth") && !s.allowedUses.includes("server_auth"),
    )) {
      expect(spec).toEqual(base.find((b) => b.id === spec.id));
    }
  });

  test("webhooks call the webhook endpoint; the Cluster API is routed to Endpoints of every host", () => {
    const groups = karmadaApiObjects(cp, hostsKarmadaApiOptions(cp, hs, undefined));
    expect(hostsWebhookBaseUrl(hs)).toBe("https://karmada.example.com:8443");
    const urls = groups.crdDependents.flatMap((c: any) =>
      c.webhooks.map((w: any) => w.clientConfig.url as string),
    );
    expect(urls.length).toBeGreaterThan(10);
    for (const url of urls) expect(url.startsWith("https://karmada.example.com:8443/")).toBe(true);
    const endpoints: any = groups.apiServices.find((o) => o.kind === "Endpoints");
    expect(endpoints.subsets[0]).toEqual({
      addresses: [{ ip: "10.0.0.5" }, { ip: "10.0.0.6" }],
      ports: [{ name: "https", port: 7443 }],
    });
    expect(groups.bootstrap.length).toBeGreaterThan(0);
  });

  test("with a front name the Cluster API uses an ExternalName Service instead", () => {
    const fronted = resolveBoth(
      { apiServer: { externalEndpoint: "karmada.example.com" } },
      hostsConfig({ apiServiceHosts: { aggregatedApiserver: "agg.example.com" } }),
    );
    const groups = karmadaApiObjects(fronted.cp, hostsKarmadaApiOptions(fronted.cp, fronted.hs, false));
    const service: any = groups.apiServices.find((o) => o.kind === "Service");
    expect(service.spec).toEqual({ type: "ExternalName", externalName: "agg.example.com" });
    expect(groups.apiServices.some((o) => o.kind === "Endpoints")).toBe(false);
    // kube-apiserver's Endpoints resolver refuses ExternalName Services: routing stays off
    const apiserver = flagMap(
      hostComponentCommand("karmada-apiserver", fronted.cp, fronted.hs, fronted.hs.machines[0]),
    );
    expect(apiserver.has("enable-aggregator-routing")).toBe(false);
    expect(groups.bootstrap).toEqual([]);
    expect(
      hostsCertificates(controlPlaneCertificates(fronted.cp), fronted.hs).find(
        (s) => s.id === "aggregated-apiserver",
      )!.dnsNames,
    ).toContain("agg.example.com");
  });

  test("an invalid front surfaces as a ConfigError naming it", () => {
    const run = () =>
      resolveBoth(
        { apiServer: { externalEndpoint: "k.example.com" } },
        hostsConfig({ apiServiceHosts: { search: "-bad-" } }),
      );
    expect(run).toThrow(ConfigError);
    expect(run).toThrow('invalid hosts.apiServiceHosts.search: "-bad-" is not a host name or IP address');
  });
});
