/**
 * KarmadaControlPlane in hosts mode under recording mocks: which commands exist, what they depend on
 * (certs → etcd → apiserver → CRDs/APIService/webhooks → controllers, host by host), that secrets stay
 * secret, and that changing one component touches only that component's commands.
 */
import * as pulumi from "@pulumi/pulumi";
import { KarmadaControlPlane } from "../../../components/karmadaControlPlane";
import { CORE_COMPONENTS } from "../../../lib/catalog/components";
import { ConfigError } from "../../../lib/validation/errors";
import { kubeObjects } from "../../support/estate";
import { Registration, find, isSecret } from "../../support/mocks";
import { SSH_KEY, buildHostsEstate, hostsConfig } from "./hostsFixtures";

const COMMAND = "command:remote:Command";
const isCrd = (r: Registration) => r.type === "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";
const commands = (records: Registration[]) =>
  new Map(records.filter((r) => r.type === COMMAND).map((r) => [r.name, r]));

describe("KarmadaControlPlane (hosts) graph", () => {
  let records: Registration[];
  let controlPlane: KarmadaControlPlane;
  let cmds: Map<string, Registration>;
  const deps = (r: Registration) => {
    const byUrn = new Map(records.map((x) => [x.urn, x]));
    return r.dependencies.map((u) => byUrn.get(u)!).filter(Boolean);
  };
  const cmd = (id: string) => {
    const hit = cmds.get(`karmada-${id}`);
    if (!hit) throw new Error(`no command karmada-${id}; have ${[...cmds.keys()].join(", ")}`);
    return hit;
  };

  beforeAll(async () => {
    ({ records, controlPlane } = await buildHostsEstate());
    cmds = commands(records);
  });

  test("one preflight per host and install / pki / service / ready per host and component; no host cluster", () => {
    expect(cmds.size).toBe(2 * (1 + 4 * CORE_COMPONENTS.length));
    for (const host of ["cp1", "cp2"]) {
      for (const component of CORE_COMPONENTS) {
        for (const id of [
          `${host}-install-${component}`,
          `${host}-pki-${component}`,
          `${host}-${component}`,
          `${host}-ready-${component}`,
        ]) {
          expect(cmd(id).parentUrn).toContain("KarmadaControlPlane");
        }
      }
    }
    const provider = find(records, "pulumi:providers:kubernetes", "karmada-karmada");
    const kube = records.filter((r) => r.custom && r.type.startsWith("kubernetes:"));
    expect(kube.length).toBeGreaterThan(10);
    for (const r of kube) expect(r.provider).toContain(provider.urn);
    expect(records.filter((r) => r.type === "pulumi:providers:kubernetes").map((r) => r.name)).toEqual([
      "karmada-karmada",
    ]);
  });

  test("one drift check per host and component: after its ready command, chained host by host, its SSH key a secret", () => {
    const checks = new Map(
      records.filter((r) => r.type === "pulumi-nodejs:dynamic:Resource").map((r) => [r.name, r]),
    );
    const expected = ["cp1", "cp2"].flatMap((h) => CORE_COMPONENTS.map((c) => `karmada-${h}-drift-${c}`));
    expect([...checks.keys()].sort()).toEqual(expected.sort());
    for (const component of CORE_COMPONENTS) {
      const first = checks.get(`karmada-cp1-drift-${component}`)!;
      const second = checks.get(`karmada-cp2-drift-${component}`)!;
      expect(first.parentUrn).toContain("KarmadaControlPlane");
      expect(deps(first)).toEqual([cmd(`cp1-ready-${component}`)]);
      // a repair after a refresh restarts one host at a time
      expect(
        deps(second)
          .map((r) => r.name)
          .sort(),
      ).toEqual([first.name, `karmada-cp2-ready-${component}`].sort());
      expect(second.inputs.observed).toMatch(/^running, command line sha256:[0-9a-f]{12}/);
      expect(second.inputs.probe).toContain(`pk-${component}`);
      expect(second.inputs.repair).toContain(`repair ${component}`);
      expect(second.inputs.connection.privateKey).toBe(SSH_KEY);
      expect(second.secretPaths).toContain("connection.privateKey");
      expect(second.additionalSecretOutputs).toContain("connection");
      // their own provider, given no configuration (the default one would carry the whole stack config)
      expect(second.provider).toContain("pulumi:providers:pulumi-nodejs::karmada-drift::");
    }
  });

  test("the drift checks carry one provider module, which the dynamic-provider host can load and diff with", async () => {
    const checks = records.filter((r) => r.type === "pulumi-nodejs:dynamic:Resource");
    const texts = new Set(checks.map((r) => r.inputs.__provider as string));
    expect(texts.size).toBe(1);
    const [text] = texts;
    // as the engine's Node.js dynamic-provider host loads it (a module exporting `handler`)
    const module = { exports: {} as { handler: () => pulumi.dynamic.ResourceProvider } };
    new Function("exports", "require", "module", text)(module.exports, require, module);
    const provider = module.exports.handler();
    expect(Object.keys(provider).sort()).toEqual(["create", "delete", "diff", "read", "update"]);
    const planned = checks[0].inputs;
    expect((await provider.diff!("id", planned, { ...planned })).changes).toBe(false);
    expect((await provider.diff!("id", { ...planned, observed: "stopped" }, planned)).changes).toBe(true);
  });

  test("orders the install: apiserver and kcm ready on every host → provider → CRDs → aggregated → APIService → controllers", () => {
    const provider = find(records, "pulumi:providers:kubernetes", "karmada-karmada");
    const core = [
      "cp1-ready-karmada-apiserver",
      "cp2-ready-karmada-apiserver",
      "cp1-ready-kube-controller-manager",
      "cp2-ready-kube-controller-manager",
    ];
    // besides the admin identity in its kubeconfig: the core ready commands of every host, and no other command
    const commandDeps = deps(provider).filter((d) => d.type === COMMAND);
    expect(commandDeps.map((d) => d.name).sort()).toEqual(core.map((id) => `karmada-${id}`).sort());
    const crds = records.filter(isCrd);
    expect(crds.length).toBeGreaterThan(0);
    for (const host of ["cp1", "cp2"]) {
      const aggregated = cmd(`${host}-karmada-aggregated-apiserver`);
      expect(deps(aggregated).filter(isCrd)).toHaveLength(crds.length);
    }
    const objects = kubeObjects(records);
    const apiService = objects.get("APIService//v1alpha1.cluster.karmada.io")!;
    expect(deps(apiService)).toEqual(
      expect.arrayContaining([
        cmd("cp1-ready-karmada-aggregated-apiserver"),
        cmd("cp2-ready-karmada-aggregated-apiserver"),
      ]),
    );
    const webhookConfig = objects.get("ValidatingWebhookConfiguration//validating-config")!;
    for (const component of ["karmada-controller-manager", "karmada-scheduler", "karmada-webhook"]) {
      for (const host of ["cp1", "cp2"]) {
        const d = deps(cmd(`${host}-${component}`));
        expect(d).toEqual(
          expect.arrayContaining([apiService, webhookConfig, cmd("cp2-ready-karmada-aggregated-apiserver")]),
        );
        expect(d.filter(isCrd)).toHaveLength(crds.length);
      }
    }
  });

  test("each component rolls host by host, after its binary, its files and the host's ready apiserver", () => {
    for (const component of CORE_COMPONENTS) {
      expect(deps(cmd(`cp2-${component}`))).toContain(cmd(`cp1-${component}`));
      const local = [cmd(`cp1-install-${component}`), cmd(`cp1-pki-${component}`)];
      if (component !== "karmada-apiserver") local.push(cmd("cp1-ready-karmada-apiserver"));
      expect(deps(cmd(`cp1-${component}`))).toEqual(expect.arrayContaining(local));
      expect(deps(cmd(`cp1-install-${component}`))).toEqual([cmd("cp1-preflight")]);
      // only the ready command waits for a first start to become healthy
      expect(deps(cmd(`cp1-ready-${component}`))).toEqual([cmd(`cp1-${component}`)]);
    }
  });

  test("a component's first start runs on every host at once: no host waits for the component to be ready on another", () => {
    for (const component of CORE_COMPONENTS) {
      for (const host of ["cp1", "cp2"]) {
        const other = host === "cp1" ? "cp2" : "cp1";
        const waits = [cmd(`${host}-${component}`), cmd(`${host}-ready-${component}`)].flatMap((r) =>
          deps(r)
            .filter((d) => d.name === `karmada-${other}-ready-${component}`)
            .map((d) => `${r.name} → ${d.name}`),
        );
        expect(waits).toEqual([]);
      }
    }
  });

  test("objects made through the Karmada provider (members, users) wait for the controllers, so destroy removes them first", async () => {
    const ready = await controlPlane.karmadaObjectsReady;
    const controllers = await controlPlane.controllersReady;
    const expected = ["cp1", "cp2"].flatMap((h) =>
      ["karmada-controller-manager", "karmada-scheduler", "karmada-webhook"].map(
        (c) => controlPlane.hostCommands![`${h}-ready-${c}`],
      ),
    );
    expect(new Set(controllers)).toEqual(new Set(expected));
    for (const c of controllers) {
      expect(ready).toContain(c);
      expect(controlPlane.clusterApiReady).toContain(c);
    }
    // kube-controller-manager (garbage collection, namespace finalization) is not among them: it
    // stops only after every object inside Karmada is gone
    expect(ready).not.toContain(controlPlane.hostCommands!["cp1-ready-kube-controller-manager"]);
  });

  test("stdin of the pki commands carries keys and is secret; nothing else holds a private key", async () => {
    const bundle = cmd("cp1-pki-karmada-apiserver");
    expect(bundle.secretPaths).toContain("stdin");
    expect(bundle.inputs.stdin).toContain("--- pulumi-karmada file: apiserver.key ---");
    expect(bundle.inputs.stdin).toContain("PRIVATE KEY");
    expect(bundle.additionalSecretOutputs).toEqual(expect.arrayContaining(["stdout", "stderr"]));
    const scheduler = cmd("cp2-pki-karmada-scheduler").inputs.stdin as string;
    expect(scheduler).toContain("server: https://10.0.0.6:5443");
    expect(scheduler).not.toContain("apiserver.key");
    const leaks: string[] = [];
    const scan = (value: unknown, path: string, r: Registration) => {
      if (typeof value === "string") {
        const secret = r.secretPaths.some(
          (p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`),
        );
        if ((/PRIVATE KEY|client-key-data/.test(value) || value.includes(SSH_KEY)) && !secret)
          leaks.push(`${r.name} ${path}`);
      } else if (value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) scan(v, path ? `${path}.${k}` : k, r);
      }
    };
    for (const r of records) scan(r.inputs, "", r);
    expect(leaks).toEqual([]);
    for (const r of cmds.values()) expect(r.secretPaths).toContain("connection");
    expect(await isSecret(controlPlane.adminKubeconfig)).toBe(true);
  });

  test("clients, webhooks and the Cluster API use the hosts: VIP in kubeconfig, webhook URL, Endpoints", () => {
    const objects = kubeObjects(records);
    const urls = objects
      .get("MutatingWebhookConfiguration//mutating-config")!
      .inputs.webhooks.map((w: any) => w.clientConfig.url);
    expect(urls.every((u: string) => u.startsWith("https://karmada.example.com:8443/"))).toBe(true);
    expect(
      objects.get("Endpoints/karmada-system/karmada-aggregated-apiserver")!.inputs.subsets[0].addresses,
    ).toEqual([{ ip: "10.0.0.5" }, { ip: "10.0.0.6" }]);
    expect(controlPlane.apiEndpoint).toBe("https://karmada.example.com:5443");
    const csr = find(records, "CertRequest", "karmada-apiserver-csr").inputs;
    expect(csr.ipAddresses).toEqual(expect.arrayContaining(["10.0.0.5", "10.0.0.6"]));
    expect(csr.dnsNames).toContain("karmada.example.com");
    expect(find(records, "CertRequest", "karmada-webhook-csr").inputs.dnsNames).toContain(
      "karmada.example.com",
    );
    expect(cmd("cp1-karmada-apiserver").inputs.create).toContain("--enable-aggregator-routing=true");
  });

  test("delete scripts stop services and remove files; replacement deletes first", () => {
    expect(cmd("cp1-karmada-scheduler").inputs.delete).toContain("karmada-scheduler stopped");
    expect(cmd("cp1-pki-karmada-scheduler").inputs.delete).toContain("rm -rf");
    expect(cmd("cp1-install-karmada-scheduler").inputs.delete).toContain("rm -f");
    expect(cmd("cp1-preflight").inputs.delete).toBeUndefined();
    expect(cmd("cp1-ready-karmada-scheduler").inputs.delete).toBeUndefined();
    // a changed script re-runs `create` in place: no separate (duplicate) `update` script
    for (const r of cmds.values()) expect(r.inputs.update).toBeUndefined();
  });
});

describe("changes touch only what they change", () => {
  const scripts = async (over: Parameters<typeof buildHostsEstate>[0], hosts = hostsConfig()) => {
    const { records } = await buildHostsEstate(over, hosts);
    return new Map(
      [...commands(records)].map(([name, r]) => [name, JSON.stringify([r.inputs.create, r.inputs.delete])]),
    );
  };
  const changed = (a: Map<string, string>, b: Map<string, string>) =>
    [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();

  let base: Map<string, string>;
  beforeAll(async () => {
    base = await scripts({});
  });

  test("a new version of one component: its install and service commands on each host, nothing else", async () => {
    const upgraded = await scripts(
      {},
      hostsConfig({
        components: { scheduler: { version: "v1.18.3", binaries: { path: "/opt/karmada-v1.18.3" } } },
      }),
    );
    expect(changed(base, upgraded)).toEqual([
      "karmada-cp1-install-karmada-scheduler",
      "karmada-cp1-karmada-scheduler",
      "karmada-cp2-install-karmada-scheduler",
      "karmada-cp2-karmada-scheduler",
    ]);
  });

  test("a Karmada release: every Karmada binary's install and service commands; kube-apiserver and kcm untouched", async () => {
    const older = await scripts({ karmadaVersion: "v1.17.1" });
    const karmada = [
      "karmada-aggregated-apiserver",
      "karmada-controller-manager",
      "karmada-scheduler",
      "karmada-webhook",
    ];
    expect(changed(older, base)).toEqual(
      ["cp1", "cp2"]
        .flatMap((h) => karmada.flatMap((c) => [`karmada-${h}-${c}`, `karmada-${h}-install-${c}`]))
        .sort(),
    );
  });

  test("a flag of one component: only its service commands", async () => {
    const tuned = await scripts({
      components: { controllerManager: { extraArgs: { "kube-api-qps": "100" } } },
    });
    expect(changed(base, tuned)).toEqual([
      "karmada-cp1-karmada-controller-manager",
      "karmada-cp2-karmada-controller-manager",
    ]);
  });

  test("bad hosts-mode input fails before anything is registered, naming the field", async () => {
    await expect(buildHostsEstate({ mode: "vm" as never })).rejects.toThrow(
      'invalid mode: unknown mode "vm" (allowed: containerized, hosts)',
    );
    await expect(buildHostsEstate({ mode: "containerized" })).rejects.toThrow(ConfigError);
    await expect(buildHostsEstate({ mode: "containerized" })).rejects.toThrow(
      'invalid hosts: only applies to mode "hosts"',
    );
  });
});
