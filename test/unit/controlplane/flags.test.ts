import { CORE_COMPONENTS, OPTIONAL_COMPONENTS } from "../../../lib/catalog";
import {
  CONTAINER_PATHS,
  ComponentPaths,
  KUBE_CONTROLLERS,
  componentFlags,
} from "../../../lib/controlplane/flags";
import { ControlPlaneComponent, componentPorts } from "../../../lib/controlplane/flags-ports";
import { COMPONENT_PKI_FILES, KUBECONFIG_PATH, PKI_DIR } from "../../../lib/pki/layout";
import { testSettings } from "../../support/settings";

const ALL: ControlPlaneComponent[] = [...CORE_COMPONENTS, ...OPTIONAL_COMPONENTS] as ControlPlaneComponent[];
const HOST_PATHS: ComponentPaths = {
  pkiDir: "/opt/karmada/scheduler/pki",
  kubeconfig: "/opt/karmada/scheduler.kubeconfig",
};

/** Parses `--name=value` flags, failing on malformed or repeated ones. */
function parse(flags: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const flag of flags) {
    const match = /^--([a-z0-9-]+)=(.*)$/.exec(flag);
    if (!match) throw new Error(`malformed flag ${flag}`);
    expect(map.has(match[1])).toBe(false);
    map.set(match[1], match[2]);
  }
  return map;
}

const flagsOf = (component: ControlPlaneComponent, settings = testSettings(), paths = CONTAINER_PATHS) =>
  parse(componentFlags(component, settings, paths));

describe("componentFlags", () => {
  it.each(ALL)("%s: flags are well-formed, unique and sorted by name", (component) => {
    const flags = componentFlags(component, testSettings(), CONTAINER_PATHS);
    const names = [...parse(flags).keys()];
    expect(names).toEqual([...names].sort());
  });

  it.each(ALL)("%s: every PKI file it names is one its cert Secret carries", (component) => {
    const carried = new Set(COMPONENT_PKI_FILES[component].map((file) => `${PKI_DIR}/${file}`));
    const referenced = [...flagsOf(component).values()]
      .flatMap((value) => value.split(","))
      .filter((value) => value.startsWith(`${PKI_DIR}/`));
    for (const path of referenced) expect(carried).toContain(path);
  });

  it.each(ALL)("%s: only the given paths are used (no container specifics)", (component) => {
    const flags = flagsOf(component, testSettings(), HOST_PATHS);
    flags.delete("etcd-prefix"); // a key prefix, not a file
    const values = [...flags.values()];
    expect(values.filter((v) => v.includes("/etc/karmada"))).toEqual([]);
    const files = values.flatMap((v) => v.split(",")).filter((v) => v.startsWith("/"));
    for (const file of files) {
      expect(
        file === HOST_PATHS.kubeconfig ||
          file === HOST_PATHS.pkiDir ||
          file.startsWith(`${HOST_PATHS.pkiDir}/`),
      ).toBe(true);
    }
  });

  it.each(ALL.filter((c) => c !== "karmada-apiserver"))(
    "%s: talks to karmada-apiserver with its kubeconfig",
    (component) => {
      expect(flagsOf(component).get("kubeconfig")).toBe(KUBECONFIG_PATH);
      expect(flagsOf(component, testSettings(), HOST_PATHS).get("kubeconfig")).toBe(HOST_PATHS.kubeconfig);
    },
  );

  it("gives every process distinct ports, so all components can share one host", () => {
    const settings = testSettings();
    const ports = ALL.flatMap((c) => Object.values(componentPorts(c, settings)));
    expect(new Set(ports).size).toBe(ports.length);
    // and the flags bind exactly those ports
    for (const component of ALL) {
      const bound = [...flagsOf(component, settings).entries()]
        .filter(([name]) =>
          ["secure-port", "health-probe-bind-address", "metrics-bind-address"].includes(name),
        )
        .map(([, value]) => Number(value.split(":").pop()));
      for (const port of bound) expect(Object.values(componentPorts(component, settings))).toContain(port);
    }
  });
});

describe("karmada-apiserver flags", () => {
  const settings = testSettings({
    clusterDomain: "corp.example",
    apiServer: { port: 6443, serviceSubnet: "10.200.0.0/16" },
    etcd: {
      endpoints: ["https://etcd-0.example:2379", "https://etcd-1.example:2379"],
      keyPrefix: "/karmada",
    },
  });
  const flags = flagsOf("karmada-apiserver", settings);

  it("stores in the configured etcd over TLS with the etcd client cert", () => {
    expect(flags.get("etcd-servers")).toBe("https://etcd-0.example:2379,https://etcd-1.example:2379");
    expect(flags.get("etcd-prefix")).toBe("/karmada");
    expect(flags.get("etcd-cafile")).toBe(`${PKI_DIR}/etcd-ca.crt`);
    expect(flags.get("etcd-certfile")).toBe(`${PKI_DIR}/etcd-client.crt`);
    expect(flags.get("etcd-keyfile")).toBe(`${PKI_DIR}/etcd-client.key`);
  });

  it("serves on the configured port with its own cert, trusting the Karmada CA for clients", () => {
    expect(flags.get("secure-port")).toBe("6443");
    expect(flags.get("tls-cert-file")).toBe(`${PKI_DIR}/apiserver.crt`);
    expect(flags.get("tls-private-key-file")).toBe(`${PKI_DIR}/apiserver.key`);
    expect(flags.get("client-ca-file")).toBe(`${PKI_DIR}/ca.crt`);
  });

  it("authorizes with Node,RBAC, accepts bootstrap tokens and disables pod-only admission", () => {
    expect(flags.get("authorization-mode")).toBe("Node,RBAC");
    expect(flags.get("enable-bootstrap-token-auth")).toBe("true");
    expect(flags.get("disable-admission-plugins")).toBe("StorageObjectInUseProtection,ServiceAccount");
    expect(flags.get("allow-privileged")).toBe("true");
    expect(Number(flags.get("max-requests-inflight"))).toBeGreaterThan(0);
    expect(Number(flags.get("max-mutating-requests-inflight"))).toBeGreaterThan(0);
  });

  it("issues service-account tokens for the cluster domain with the SA key pair", () => {
    expect(flags.get("service-account-issuer")).toBe("https://kubernetes.default.svc.corp.example");
    expect(flags.get("service-account-key-file")).toBe(`${PKI_DIR}/sa.pub`);
    expect(flags.get("service-account-signing-key-file")).toBe(`${PKI_DIR}/sa.key`);
    expect(flags.get("service-cluster-ip-range")).toBe("10.200.0.0/16");
  });

  it("proxies to aggregated API servers as the front-proxy client", () => {
    expect(flags.get("proxy-client-cert-file")).toBe(`${PKI_DIR}/front-proxy-client.crt`);
    expect(flags.get("proxy-client-key-file")).toBe(`${PKI_DIR}/front-proxy-client.key`);
    expect(flags.get("requestheader-client-ca-file")).toBe(`${PKI_DIR}/front-proxy-ca.crt`);
    expect(flags.get("requestheader-allowed-names")).toBe("front-proxy-client");
    expect(flags.get("requestheader-username-headers")).toBe("X-Remote-User");
    expect(flags.get("requestheader-group-headers")).toBe("X-Remote-Group");
    expect(flags.get("requestheader-extra-headers-prefix")).toBe("X-Remote-Extra-");
  });
});

describe("other components' flags", () => {
  it("aggregated apiserver and search share Karmada's etcd and key prefix", () => {
    const settings = testSettings({ etcd: { endpoints: ["https://e:2379"], keyPrefix: "/k" } });
    for (const component of ["karmada-aggregated-apiserver", "karmada-search"] as const) {
      const flags = flagsOf(component, settings);
      expect(flags.get("etcd-servers")).toBe("https://e:2379");
      expect(flags.get("etcd-prefix")).toBe("/k");
    }
  });

  it.each([
    ["karmada-aggregated-apiserver", "aggregated-apiserver"],
    ["karmada-metrics-adapter", "metrics-adapter"],
    ["karmada-search", "search"],
  ] as const)("%s serves with its own cert and trusts the front proxy", (component, stem) => {
    const flags = flagsOf(component);
    expect(flags.get("tls-cert-file")).toBe(`${PKI_DIR}/${stem}.crt`);
    expect(flags.get("tls-private-key-file")).toBe(`${PKI_DIR}/${stem}.key`);
    expect(flags.get("requestheader-client-ca-file")).toBe(`${PKI_DIR}/front-proxy-ca.crt`);
    expect(flags.get("authentication-kubeconfig")).toBe(KUBECONFIG_PATH);
    expect(flags.get("authorization-kubeconfig")).toBe(KUBECONFIG_PATH);
  });

  it("kube-controller-manager runs exactly Karmada's controllers and signs with the Karmada CA", () => {
    const flags = flagsOf("kube-controller-manager");
    const controllers = flags.get("controllers")!.split(",");
    for (const required of [
      "namespace",
      "garbagecollector",
      "serviceaccount-token",
      "ttl-after-finished",
      "bootstrapsigner",
      "csrapproving",
      "csrcleaner",
      "csrsigning",
    ]) {
      expect(controllers).toContain(required);
    }
    expect(controllers).toEqual([...KUBE_CONTROLLERS]);
    expect(flags.get("cluster-signing-cert-file")).toBe(`${PKI_DIR}/ca.crt`);
    expect(flags.get("cluster-signing-key-file")).toBe(`${PKI_DIR}/ca.key`);
    expect(flags.get("root-ca-file")).toBe(`${PKI_DIR}/ca.crt`);
    expect(flags.get("service-account-private-key-file")).toBe(`${PKI_DIR}/sa.key`);
    expect(flags.get("leader-elect")).toBe("true");
    expect(flags.get("authentication-kubeconfig")).toBe(KUBECONFIG_PATH);
    expect(flags.get("authorization-kubeconfig")).toBe(KUBECONFIG_PATH);
  });

  it("webhook reads its serving pair from the PKI directory by file name", () => {
    const flags = flagsOf("karmada-webhook", testSettings(), HOST_PATHS);
    expect(flags.get("cert-dir")).toBe(HOST_PATHS.pkiDir);
    expect(flags.get("tls-cert-file-name")).toBe("webhook.crt");
    expect(flags.get("tls-private-key-file-name")).toBe("webhook.key");
    expect(COMPONENT_PKI_FILES["karmada-webhook"]).toEqual(
      expect.arrayContaining(["webhook.crt", "webhook.key"]),
    );
    expect(flags.get("secure-port")).toBe("8443");
  });

  it.each([
    ["karmada-controller-manager", 10357],
    ["karmada-scheduler", 10351],
    ["karmada-descheduler", 10358],
  ] as const)("%s serves health on the upstream port %d", (component, port) => {
    expect(flagsOf(component).get("health-probe-bind-address")).toBe(`0.0.0.0:${port}`);
  });
});

describe("feature gates", () => {
  const settings = testSettings({
    featureGates: { Failover: true, PropagateDeps: false },
    components: {
      "karmada-scheduler": { featureGates: { Failover: false, CustomizedClusterResourceModeling: true } },
      "karmada-apiserver": { featureGates: { ServiceAccountTokenNodeBinding: true } },
    },
  });

  it("merges global and component gates into one sorted flag, component winning", () => {
    expect(flagsOf("karmada-scheduler", settings).get("feature-gates")).toBe(
      "CustomizedClusterResourceModeling=true,Failover=false,PropagateDeps=false",
    );
    expect(flagsOf("karmada-controller-manager", settings).get("feature-gates")).toBe(
      "Failover=true,PropagateDeps=false",
    );
  });

  it("leaves the flag out without gates", () => {
    expect(flagsOf("karmada-scheduler").has("feature-gates")).toBe(false);
  });

  it("never passes Karmada's global gates to kube-apiserver/kube-controller-manager, which reject them", () => {
    expect(flagsOf("karmada-apiserver", settings).get("feature-gates")).toBe(
      "ServiceAccountTokenNodeBinding=true",
    );
    expect(flagsOf("kube-controller-manager", settings).has("feature-gates")).toBe(false);
  });

  it.each(["karmada-descheduler", "karmada-search", "karmada-metrics-adapter"] as const)(
    "omits --feature-gates for %s, whose binary has no such flag",
    (component) => {
      expect(flagsOf(component, settings).has("feature-gates")).toBe(false);
    },
  );
});

describe("extraArgs", () => {
  it("override generated flags of the same name and add new ones, keeping the order by name", () => {
    const settings = testSettings({
      featureGates: { Failover: true },
      components: {
        "karmada-apiserver": {
          extraArgs: { "max-requests-inflight": "3000", "audit-log-path": "-", v: "4" },
        },
        // not wired for the descheduler, so the user may pass gates through
        "karmada-descheduler": { extraArgs: { "feature-gates": "Failover=false" } },
      },
    });
    const flags = componentFlags("karmada-apiserver", settings, CONTAINER_PATHS);
    const parsed = parse(flags);
    expect(parsed.get("max-requests-inflight")).toBe("3000");
    expect(parsed.get("audit-log-path")).toBe("-");
    expect(parsed.get("v")).toBe("4");
    expect([...parsed.keys()]).toEqual([...parsed.keys()].sort());
    expect(flagsOf("karmada-descheduler", settings).get("feature-gates")).toBe("Failover=false");
  });
});
