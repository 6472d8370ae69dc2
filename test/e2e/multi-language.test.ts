/**
 * The components from other Pulumi languages, through the component provider plugin (provider/) and the
 * real engine: examples/python and examples/yaml bring up the containerized estate on loopback API
 * servers — `up`, a second `up` with no changes, `destroy` that keeps etcd's data — and examples/go
 * previews the same estate. Secrets cross the language boundary as secrets: the state holds no private key
 * or kubeconfig in plain text.
 *
 * Each of Python and YAML gets a new environment (a host cluster and, see estateFixture.ts, a stand-in
 * kube-apiserver for karmada-apiserver trusting a CA the test brings); Go previews against YAML's.
 */
import { Stack } from "@pulumi/pulumi/automation";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LoopbackCluster, startCluster } from "../support/kube/cluster";
import { CaPair, generateCa } from "../support/kube/pki";
import { listNames } from "../support/kube";
import {
  EngineEnv,
  StateResource,
  changedResources,
  commandEnv,
  createEngineEnv,
  crdSourceForTests,
  e2eTier,
  installLanguageProject,
  languageProjectStack,
  recordSteps,
  stateResources,
} from "../support/engine";

jest.setTimeout(30 * 60_000);

const tier = e2eTier("components from Python, YAML and Go, real engine (test/e2e/multi-language.test.ts)", {
  binaries: [
    "pulumi",
    "pulumi-language-nodejs",
    "pulumi-language-python",
    "pulumi-language-yaml",
    "pulumi-language-go",
    "python3",
    "go",
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
  ],
  plugins: ["tls", "random", "kubernetes"],
});

const NAMESPACE = "karmada-system";
const COMPONENTS = ["karmada:index:EtcdCluster", "karmada:index:KarmadaControlPlane"];

/** Where each program's environment listens: a host cluster and the stand-in karmada-apiserver. */
const ADDRESSES = {
  python: { host: "127.0.13.10", karmadaApi: "127.0.13.11" },
  yaml: { host: "127.0.13.20", karmadaApi: "127.0.13.21" },
} as const;

tier.describe("pulumi-karmada from other languages (real engine, loopback clusters)", () => {
  let engine: EngineEnv;
  let host: LoopbackCluster;
  let karmadaApi: LoopbackCluster;
  let karmadaCa: CaPair;

  beforeAll(() => {
    engine = createEngineEnv("pk-languages-");
    karmadaCa = generateCa(path.join(engine.dir, "karmada-ca"), "karmada-e2e-ca");
  });

  afterAll(async () => {
    await stopClusters();
    engine?.cleanup();
  });

  /**
   * A new environment for each program (the one before kept its etcd data, and the namespace holding
   * it, on destroy — as it must).
   */
  async function startClusters(addresses: {
    readonly host: string;
    readonly karmadaApi: string;
  }): Promise<void> {
    await stopClusters();
    const dir = (name: string) => path.join(engine.dir, `${addresses.host}-${name}`);
    [host, karmadaApi] = await Promise.all([
      startCluster({ name: "host", address: addresses.host, dir: dir("host") }),
      startCluster({
        name: "karmada-api",
        address: addresses.karmadaApi,
        ca: karmadaCa,
        dir: dir("karmada-api"),
      }),
    ]);
  }

  async function stopClusters(): Promise<void> {
    await host?.stop();
    await karmadaApi?.stop();
  }

  /** The estate's settings, as each example reads them (test-bed values: no kubelet, a stand-in API). */
  async function configure(stack: Stack): Promise<void> {
    const plain: Record<string, string> = {
      context: host.contextName,
      externalEndpoint: `${karmadaApi.address}:${new URL(karmadaApi.server).port}`,
      karmadaCaCert: karmadaCa.certPem,
      etcdReplicas: "1",
      awaitWorkloads: "false",
      crdsPath: crdSourceForTests().path,
    };
    for (const [key, value] of Object.entries(plain)) await stack.setConfig(key, { value });
    await stack.setConfig("kubeconfig", { value: host.kubeconfig, secret: true });
    await stack.setConfig("karmadaCaKey", { value: karmadaCa.keyPem, secret: true });
  }

  /** Every string in the state that holds key material or a kubeconfig in plain text. */
  function plaintextSecrets(resources: readonly StateResource[]): string[] {
    const keyBody = karmadaCa.keyPem.split("\n")[1];
    const found: string[] = [];
    const walk = (value: unknown, where: string): void => {
      if (typeof value === "string") {
        if (/PRIVATE KEY-----|client-key-data|\btoken:/.test(value) || value.includes(keyBody))
          found.push(where);
      } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${where}[${i}]`));
      else if (value && typeof value === "object")
        for (const [k, v] of Object.entries(value)) walk(v, `${where}.${k}`);
    };
    for (const r of resources) walk({ inputs: r.inputs, outputs: r.outputs }, r.urn);
    return found;
  }

  /** The stack's resources as the backend stores them (`pulumi stack export`, secrets encrypted). */
  function encryptedState(stack: Stack): StateResource[] {
    const file = path.join(engine.dir, `${stack.name}-state.json`);
    execFileSync(engine.pulumiBinary, ["stack", "export", "--stack", stack.name, "--file", file], {
      cwd: stack.workspace.workDir,
      env: commandEnv(engine),
      stdio: "pipe",
    });
    return JSON.parse(fs.readFileSync(file, "utf8")).deployment.resources as StateResource[];
  }

  /** The etcd PVCs on the host cluster. */
  const etcdClaims = () =>
    listNames(host.credentials, `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`);

  describe.each(["python", "yaml"] as const)("%s", (language) => {
    let stack: Stack;

    it("brings up the estate: the components and the control plane's objects, as children", async () => {
      await startClusters(ADDRESSES[language]);
      const dir = installLanguageProject(engine, language);
      stack = await languageProjectStack(engine, dir, language);
      await configure(stack);
      const result = await stack.up({ color: "never" });
      expect(result.summary.result).toBe("succeeded");
      const resources = await stateResources(stack);
      for (const type of COMPONENTS) expect(resources.map((r) => r.type)).toContain(type);
      // the children of the components exist in the language's stack, parented to the component
      const controlPlane = resources.find((r) => r.type === "karmada:index:KarmadaControlPlane");
      const children = resources.filter((r) => r.parent === controlPlane?.urn);
      expect(children.length).toBeGreaterThan(20);
      expect(result.outputs.apiEndpoint.value).toBe(
        `https://${karmadaApi.address}:${new URL(karmadaApi.server).port}`,
      );
      expect(result.outputs.kubeconfig.secret).toBe(true);
      expect(await etcdClaims()).not.toHaveLength(0);
    });

    it("keeps every secret a secret in the state", async () => {
      const resources = encryptedState(stack);
      expect(plaintextSecrets(resources)).toEqual([]);
      const controlPlane = resources.find((r) => r.type === "karmada:index:KarmadaControlPlane");
      expect(JSON.stringify(controlPlane?.outputs?.adminKubeconfig)).toContain("ciphertext");
    });

    it("reports no changes on a second up", async () => {
      const steps = recordSteps();
      const result = await stack.up({ color: "never", onEvent: steps.onEvent });
      expect(result.summary.result).toBe("succeeded");
      expect([...changedResources(steps.steps).keys()]).toEqual([]);
    });

    it("destroys everything but etcd's data", async () => {
      const claims = await etcdClaims();
      const result = await stack.destroy({ color: "never" });
      expect(result.summary.result).toBe("succeeded");
      expect(await stateResources(stack)).toEqual([]);
      expect(await etcdClaims()).toEqual(claims);
    });
  });

  it("go: previews the same estate", async () => {
    const dir = installLanguageProject(engine, "go");
    const stack = await languageProjectStack(engine, dir, "go");
    await configure(stack);
    const steps = recordSteps();
    const result = await stack.preview({ color: "never", onEvent: steps.onEvent });
    const created = steps.steps.filter((s) => s.op === "create").map((s) => s.type);
    for (const type of COMPONENTS) expect(created).toContain(type);
    expect(created.filter((t) => t.startsWith("kubernetes:")).length).toBeGreaterThan(20);
    expect(result.changeSummary.create).toBeGreaterThan(20);
  });
});
