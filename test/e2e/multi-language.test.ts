/**
 * The components from other Pulumi languages, through the component provider plugin (provider/) and the
 * real engine: examples/python and examples/yaml bring up the containerized estate on the e2e lab's real
 * nodes — `up` (its pods Running, karmada-apiserver answering through the kubeconfig the program outputs),
 * a second `up` with no changes, `destroy` that keeps etcd's data — and examples/go previews the same
 * estate. Secrets cross the language boundary as secrets: the state holds no private key or kubeconfig in
 * plain text.
 *
 * Each program gets its own host namespace and NodePort on the shared lab, one etcd member, every image
 * from the lab registry; Python generates its Karmada CA, YAML brings one (`pki.karmadaCa`).
 */
import { Stack } from "@pulumi/pulumi/automation";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { clusterOf } from "../../devkit/lab/plan";
import { testbedCrdBundle } from "../../devkit/lab/estate";
import type { Lab } from "../../devkit/lab/lab";
import { adminCredentials } from "../../devkit/lab/controlPlane";
import { CaPair, generateCa } from "../../devkit/pki";
import { apiGet, credentialsFromKubeconfig, listNames } from "../../devkit/kube";
import { callApi } from "../../lib/kube/rest";
import {
  EngineEnv,
  StateResource,
  changedResources,
  commandEnv,
  createEngineEnv,
  e2eTier,
  installLanguageProject,
  languageProjectStack,
  recordSteps,
  stateResources,
} from "../../devkit/engine";
import { LAB_NEEDS, useLab } from "../../devkit/lab/useLab";

jest.setTimeout(30 * 60_000);

const tier = e2eTier(
  "components from Python, YAML and Go on real nodes, real engine (test/e2e/multi-language.test.ts)",
  {
    binaries: [
      ...(LAB_NEEDS.binaries ?? []),
      "pulumi-language-python",
      "pulumi-language-yaml",
      "pulumi-language-go",
      "python3",
      "go",
    ],
    plugins: LAB_NEEDS.plugins,
  },
);

const COMPONENTS = ["karmada:index:EtcdCluster", "karmada:index:KarmadaControlPlane"];

/** Each program's own place on the shared lab. */
const PLACES = {
  python: { namespace: "karmada-python", nodePort: 32444 },
  yaml: { namespace: "karmada-yaml", nodePort: 32445 },
  go: { namespace: "karmada-go", nodePort: 32446 },
} as const;

tier.describe("pulumi-karmada from other languages (real engine, the lab's real nodes)", () => {
  let engine: EngineEnv;
  let lab: Lab;
  let karmadaCa: CaPair;

  beforeAll(async () => {
    lab = await useLab();
    engine = createEngineEnv("pk-languages-");
    karmadaCa = generateCa(path.join(engine.dir, "karmada-ca"), "karmada-e2e-ca");
  });

  afterAll(() => engine?.cleanup());

  const host = () => adminCredentials(clusterOf(lab.plan, "host"));
  const endpointOf = (language: keyof typeof PLACES) =>
    `${clusterOf(lab.plan, "host").nodes[0].address}:${PLACES[language].nodePort}`;

  /** The estate's settings, as each example reads them: the lab's host cluster, registry and a NodePort. */
  async function configure(stack: Stack, language: keyof typeof PLACES): Promise<void> {
    const plain: Record<string, string> = {
      context: `lab-host`,
      namespace: PLACES[language].namespace,
      apiServerServiceType: "NodePort",
      nodePort: String(PLACES[language].nodePort),
      externalEndpoint: endpointOf(language),
      imageRegistry: `${lab.plan.registry}/karmada`,
      etcdImage: lab.image("karmada/etcd"),
      etcdReplicas: "1",
      crdsPath: testbedCrdBundle(),
      ...(language === "python" ? {} : { karmadaCaCert: karmadaCa.certPem }),
    };
    for (const [key, value] of Object.entries(plain)) await stack.setConfig(key, { value });
    await stack.setConfig("kubeconfig", { value: lab.kubeconfig("host"), secret: true });
    if (language !== "python")
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

  /** The etcd PVCs of a program's namespace on the host cluster. */
  const etcdClaims = (language: keyof typeof PLACES) =>
    listNames(host(), `/api/v1/namespaces/${PLACES[language].namespace}/persistentvolumeclaims`);

  describe.each(["python", "yaml"] as const)("%s", (language) => {
    let stack: Stack;

    it("brings up the estate on real nodes: the components and the control plane's objects, as children; its karmada-apiserver answers", async () => {
      const dir = installLanguageProject(engine, language);
      stack = await languageProjectStack(engine, dir, language);
      await configure(stack, language);
      const result = await stack.up({ color: "never" });
      expect(result.summary.result).toBe("succeeded");
      const resources = await stateResources(stack);
      for (const type of COMPONENTS) expect(resources.map((r) => r.type)).toContain(type);
      // the children of the components exist in the language's stack, parented to the component
      const controlPlane = resources.find((r) => r.type === "karmada:index:KarmadaControlPlane");
      const children = resources.filter((r) => r.parent === controlPlane?.urn);
      expect(children.length).toBeGreaterThan(20);
      expect(result.outputs.apiEndpoint.value).toBe(`https://${endpointOf(language)}`);
      expect(result.outputs.kubeconfig.secret).toBe(true);
      // the workloads ran (the components awaited them): Karmada answers to the kubeconfig the program outputs
      const karmada = credentialsFromKubeconfig(result.outputs.kubeconfig.value);
      expect((await callApi(karmada, "GET", "/readyz")).status).toBe(200);
      expect(
        (await apiGet(karmada, "/apis/rbac.authorization.k8s.io/v1/clusterroles/platform-viewer")).metadata
          .name,
      ).toBe("platform-viewer");
      if (language === "yaml") expect(karmada.caPem.trim()).toBe(karmadaCa.certPem.trim());
      expect(await etcdClaims(language)).toEqual(["data-etcd-0"]);
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
      const claims = await etcdClaims(language);
      const result = await stack.destroy({ color: "never" });
      expect(result.summary.result).toBe("succeeded");
      expect(await stateResources(stack)).toEqual([]);
      expect(await etcdClaims(language)).toEqual(claims);
    });
  });

  it("go: previews the same estate", async () => {
    const dir = installLanguageProject(engine, "go");
    const stack = await languageProjectStack(engine, dir, "go");
    await configure(stack, "go");
    const steps = recordSteps();
    const result = await stack.preview({ color: "never", onEvent: steps.onEvent });
    const created = steps.steps.filter((s) => s.op === "create").map((s) => s.type);
    for (const type of COMPONENTS) expect(created).toContain(type);
    expect(created.filter((t) => t.startsWith("kubernetes:")).length).toBeGreaterThan(20);
    expect(result.changeSummary.create).toBeGreaterThan(20);
  });
});
