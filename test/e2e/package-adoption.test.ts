/**
 * The package as a platform team adopts it: `npm pack` of a clean checkout, the tarball installed into
 * a project made by `pulumi new templates/karmada-estate`, and the programs an adopter would run there —
 * the template's own (from its committed Pulumi.dev.yaml) and the two examples — type-checked against the
 * installed package and previewed by the real engine against a real loopback kube-apiserver.
 *
 * One tarball, one `npm install` and one API server serve every check (CI time): the examples run from
 * sub-directories of the template project, so Node and TypeScript resolve `pulumi-karmada` from its
 * node_modules — the packed tarball, never the repository's sources.
 */
import { LocalWorkspace, PolicyEvent, Stack } from "@pulumi/pulumi/automation";
import Ajv from "ajv";
import { spawn } from "child_process";
import * as fs from "fs";
import { createServer } from "net";
import * as path from "path";
import * as YAML from "yaml";
import { objectNames } from "../../lib/controlplane/names";
import { parseUrn } from "../../lib/preview/urn";
import { ConfigError } from "../../lib/validation/errors";
import { parseStackConfig } from "../../stacks/config";
import {
  EngineEnv,
  createEngineEnv,
  crdSourceForTests,
  e2eTier,
  setStructuredConfig,
} from "../../devkit/engine";
import { REPO_ROOT } from "../../devkit/kube";
import type { Lab } from "../../devkit/lab/lab";
import { LAB_NEEDS, useLab } from "../../devkit/lab/useLab";
import {
  PACKAGE_DOCUMENTS,
  PackedPackage,
  compiledLibraryFiles,
  fileListDifference,
  installTarball,
  packCheckout,
  run,
  tarballEntries,
} from "../support/packedPackage";

jest.setTimeout(20 * 60_000);

const tier = e2eTier(
  "package adoption: npm pack, pulumi new template, examples (test/e2e/package-adoption.test.ts)",
  { binaries: LAB_NEEDS.binaries, plugins: [...(LAB_NEEDS.plugins ?? []), "command"] },
);

const PACKAGE_NAME = "pulumi-karmada";
const TEMPLATE_DIR = path.join(REPO_ROOT, "templates", "karmada-estate");
const TEMPLATE_STACKS = ["dev", "prod"];
const EXAMPLES = ["containerized", "members"] as const;
const SCHEMA_LINE = `# yaml-language-server: $schema=./node_modules/${PACKAGE_NAME}/schemas/stack-config.schema.json`;
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));
/**
 * A platform's use of the console's typed client: it type-checks only when the client's types, generated
 * from the OpenAPI document, arrive with the package (an `any` would pass everything: it is refused).
 */
const CONSOLE_CLIENT_USE = `import { ConsoleClient, EstateSummary } from "pulumi-karmada/console-client";
type IsAny<T> = 0 extends 1 & T ? true : false;
export const typed: IsAny<EstateSummary> extends false ? true : never = true;
export async function readyMembers(client: ConsoleClient): Promise<string[]> {
  const { estates } = await client.listEstates();
  return estates.flatMap((e) => e.members.filter((m) => m.ready === "True").map((m) => m.name));
}
`;
const repoPackage = readJson(path.join(REPO_ROOT, "package.json"));

/** One resource the engine announced in a preview, with the inputs it would send. */
interface PreviewStep {
  readonly op: string;
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, any>;
}

/** Previews `stack`, recording every resource step (the run must succeed). */
async function previewSteps(stack: Stack): Promise<PreviewStep[]> {
  const steps: PreviewStep[] = [];
  await stack.preview({
    onEvent: (event) => {
      const md = event.resourcePreEvent?.metadata;
      if (!md) return;
      steps.push({ op: md.op, type: md.type, name: parseUrn(md.urn).name, inputs: md.new?.inputs ?? {} });
    },
  });
  return steps;
}

/** `type name` of every step, sorted: readable in assertion failures. */
const describeSteps = (steps: readonly PreviewStep[]) => steps.map((s) => `${s.type} ${s.name}`).sort();
const ofType = (steps: readonly PreviewStep[], type: string) => steps.filter((s) => s.type === type);

/** The module specifier of an `exports` subpath (`.` → the package name). */
const specifierOf = (subpath: string) =>
  subpath === "." ? PACKAGE_NAME : `${PACKAGE_NAME}/${subpath.slice(2)}`;

/** How Node resolves a specifier from `dir`, by `require` and by `import` (export names, or the error code). */
interface Resolution {
  readonly resolved?: string;
  readonly requireKeys?: string[];
  readonly requireError?: string;
  readonly importKeys?: string[];
  readonly importError?: string;
}

/** Runs a probe script in `dir` (a plain Node process: no engine, no jest module mapping). */
async function resolveFrom(dir: string, specifiers: readonly string[]): Promise<Record<string, Resolution>> {
  const probe = path.join(dir, "resolve-probe.mjs");
  fs.writeFileSync(
    probe,
    `import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const keys = (m) => Object.keys(m).sort();
const out = {};
for (const spec of JSON.parse(process.argv[2])) {
  const r = (out[spec] = {});
  try { r.resolved = require.resolve(spec); r.requireKeys = keys(require(spec)); } catch (e) { r.requireError = e.code ?? e.message; }
  try {
    const m = spec.endsWith(".json") ? await import(spec, { with: { type: "json" } }) : await import(spec);
    r.importKeys = keys(m.default ?? m);
  } catch (e) { r.importError = e.code ?? e.message; }
}
console.log(JSON.stringify(out));
`,
  );
  return JSON.parse(await run(process.execPath, [probe, JSON.stringify(specifiers)], { cwd: dir }));
}

/** A stack of the Pulumi project in `workDir`, on the engine's backend (its stack file is kept if present). */
async function projectStack(engine: EngineEnv, workDir: string, stackName: string): Promise<Stack> {
  return LocalWorkspace.createStack(
    { stackName, workDir },
    {
      envVars: { ...engine.env },
      pulumiCommand: await engine.pulumiCommand(),
      secretsProvider: "passphrase",
    },
  );
}

/**
 * The settings the stack program accepts (stacks/config.ts): the allowed values `parseStackConfig` lists
 * when it refuses an unknown key.
 */
function acceptedSettings(): string[] {
  try {
    parseStackConfig({ "not-a-setting": true });
  } catch (e) {
    if (e instanceof ConfigError && e.allowed) return e.allowed.split(", ").sort();
    throw e;
  }
  throw new Error("parseStackConfig accepted an unknown key");
}

/** Top-level `karmada:<key>` entries a stack file names, set or commented out. */
function namedKeys(text: string): Set<string> {
  return new Set([...text.matchAll(/^ {2}(?:# )?karmada:(\w+):/gm)].map((m) => m[1]));
}

tier.describe("the packed package, adopted by a project made from the template", () => {
  let engine: EngineEnv;
  /** The e2e lab: its host cluster is what the programs preview against. */
  let lab: Lab | undefined;
  let packed: PackedPackage;
  let project: string;
  let installed: string;
  let schema: { properties: { config: { properties: Record<string, unknown> } } };

  /** Packs, creates the template project, installs the tarball there and copies the examples in. */
  async function adoptingProject(): Promise<void> {
    packed = await packCheckout(path.join(engine.dir, "pack"));
    project = path.join(engine.dir, "karmada-estate");
    await run(
      engine.pulumiBinary,
      ["new", TEMPLATE_DIR, "--dir", project, "--stack", "dev", "--yes", "--generate-only"],
      { cwd: engine.dir, env: { ...process.env, ...engine.env } },
    );
    await installTarball(project, packed.tarball);
    installed = path.join(project, "node_modules", PACKAGE_NAME);
    for (const example of EXAMPLES) {
      const dir = path.join(project, "examples", example);
      fs.mkdirSync(dir, { recursive: true });
      // the language host takes the program from the nearest package.json's `main`; its dependencies are
      // not installed here (Node finds them in the project's node_modules)
      for (const file of ["Pulumi.yaml", "package.json", "index.ts"])
        fs.copyFileSync(path.join(REPO_ROOT, "examples", example, file), path.join(dir, file));
    }
    schema = readJson(path.join(installed, "schemas", "stack-config.schema.json"));
  }

  beforeAll(async () => {
    engine = createEngineEnv("pk-adoption-");
    // the lab starts (if no suite before started it) while npm and tsc use the CPU
    const [started, prepared] = await Promise.allSettled([useLab(), adoptingProject()]);
    if (started.status === "fulfilled") lab = started.value;
    if (started.status === "rejected") throw started.reason;
    if (prepared.status === "rejected") throw prepared.reason;
  });

  afterAll(() => engine?.cleanup());

  /** The lab host cluster's admin kubeconfig (a secret) and its context. */
  const hostKubeconfig = () => ({ value: lab!.kubeconfig("host"), secret: true });
  const HOST_CONTEXT = "lab-host";

  test("npm pack holds the compiled library, README, LICENSE, CHANGELOG and the stack config schema, nothing else", async () => {
    const entries = await tarballEntries(packed.tarball);
    const expected = [...compiledLibraryFiles(packed.sourceFiles), ...PACKAGE_DOCUMENTS];
    expect(fileListDifference(entries, expected)).toEqual({ unexpected: [], missing: [] });
    const license = fs.readFileSync(path.join(installed, "LICENSE"), "utf8");
    expect(license).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(license).toMatch(/END OF TERMS AND CONDITIONS/);
    const changelog = fs.readFileSync(path.join(installed, "CHANGELOG.md"), "utf8");
    expect(changelog).toMatch(/^## \[Unreleased\]/m);
    expect(changelog).toMatch(/Semantic Versioning/);
  });

  test("package.json: Apache-2.0, an exports map whose targets are in the package, main/types for old resolvers", () => {
    const pkg = readJson(path.join(installed, "package.json"));
    expect(pkg.license).toBe("Apache-2.0");
    expect(pkg.version).toBe(repoPackage.version);
    const targets = Object.values(pkg.exports as Record<string, string | Record<string, string>>).flatMap(
      (t) => (typeof t === "string" ? [t] : Object.values(t)),
    );
    for (const target of [...targets, pkg.main, pkg.types])
      expect(fs.existsSync(path.join(installed, target))).toBe(true);
    expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining([".", "./stack", "./package.json"]));
  });

  test("every exports subpath resolves in the project by require and import; a deep import is refused", async () => {
    const pkg = readJson(path.join(installed, "package.json"));
    const exported = Object.keys(pkg.exports).map(specifierOf);
    const deep = `${PACKAGE_NAME}/bin/lib/catalog/index.js`;
    const resolution = await resolveFrom(project, [...exported, deep]);
    for (const spec of exported) {
      const r = resolution[spec];
      expect({ spec, requireError: r.requireError, importError: r.importError }).toEqual({ spec });
      // the installed tarball, not the checkout
      expect(r.resolved?.startsWith(installed + path.sep)).toBe(true);
      expect(r.importKeys).toEqual(r.requireKeys);
    }
    expect(resolution[PACKAGE_NAME].requireKeys).toEqual(
      expect.arrayContaining([
        "Addon",
        "ConfigError",
        "EtcdCluster",
        "KarmadaControlPlane",
        "MemberRegistration",
      ]),
    );
    expect(resolution[`${PACKAGE_NAME}/stack`].requireKeys).toEqual(
      expect.arrayContaining(["buildEstate", "estateOutputs", "estateStack", "readStackConfig"]),
    );
    expect(resolution[`${PACKAGE_NAME}/console-client`].requireKeys).toEqual(
      expect.arrayContaining(["ConsoleApiError", "ConsoleClient"]),
    );
    // the file is in the tarball: only the exports map keeps it out of reach
    expect(fs.existsSync(path.join(installed, "bin", "lib", "catalog", "index.js"))).toBe(true);
    expect(resolution[deep]).toEqual({
      requireError: "ERR_PACKAGE_PATH_NOT_EXPORTED",
      importError: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    });
  });

  test("the console ships as a command: the installed `pulumi-karmada-console` serves the web console and the API (the OpenAPI document as in the repository) over the project, refuses a request without its token, stops on SIGTERM", async () => {
    const token = "adoption-console-token-0123456789abcdef";
    const port = await freeLoopbackPort();
    const command = path.join(project, "node_modules", ".bin", "pulumi-karmada-console");
    const child = spawn(
      command,
      ["--program", project, "--port", String(port), "--data-dir", path.join(engine.dir, "console")],
      {
        env: { ...process.env, ...engine.env, PULUMI_KARMADA_CONSOLE_TOKEN: token },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes(`http://127.0.0.1:${port}/`)) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`the console did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const base = `http://127.0.0.1:${port}`;
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('src="/console/dist/web/app.js"');
      for (const file of ["/console/dist/web/app.js", "/console/dist/client/index.js", "/console/style.css"])
        expect([file, (await fetch(`${base}${file}`)).status]).toEqual([file, 200]);
      expect((await fetch(`${base}/api/v1/estates`)).status).toBe(401);
      const auth = { headers: { Authorization: `Bearer ${token}` } };
      const estates = await fetch(`${base}/api/v1/estates`, auth);
      expect(estates.status).toBe(200);
      expect(Array.isArray(((await estates.json()) as { estates: unknown }).estates)).toBe(true);
      const served = await (await fetch(`${base}/api/openapi.json`, auth)).json();
      expect(served).toEqual(readJson(path.join(REPO_ROOT, "console", "openapi.json")));
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });

  test("the library's dynamic providers serialize from the installed package and load as the engine's dynamic-provider host loads them", async () => {
    // the SDK's serializer captures a module under node_modules as a require of its path, which the
    // exports map refuses for the library's internal modules: the providers must hold functions, not modules
    const probe = path.join(project, "provider-probe.js");
    fs.writeFileSync(
      probe,
      `const path = require("path");
const { builtinModules } = require("module");
const pulumi = require("@pulumi/pulumi");
const out = {};
(async () => {
  for (const [name, file, key] of JSON.parse(process.argv[2])) {
    const provider = require(path.join(process.argv[3], "bin", file))[key];
    try {
      const { text } = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
      const module = { exports: {} };
      new Function("exports", "require", "module", text)(module.exports, require, module);
      // what the module requires when the host loads it: Node's built-ins only
      const requires = [...text.matchAll(/require\\("([^"]+)"\\)/g)].map((m) => m[1]);
      const foreign = requires.filter((r) => !builtinModules.includes(r.replace(/^node:/, "")));
      out[name] = foreign.length ? foreign : Object.keys(module.exports.handler()).sort();
    } catch (e) {
      out[name] = String(e.message).split("\\n")[0];
    }
  }
  console.log(JSON.stringify(out));
})();
`,
    );
    const providers = [
      ["drift", "components/controlplane/drift.js", "driftProvider"],
      ["drain", "components/members/drain.js", "drainProvider"],
    ];
    const loaded = JSON.parse(
      await run(process.execPath, [probe, JSON.stringify(providers), installed], { cwd: project }),
    );
    expect(loaded).toEqual({
      drift: ["create", "delete", "diff", "read", "update"],
      drain: ["create", "delete", "diff", "update"],
    });
  });

  test.each([
    ["node (typesVersions)", { module: "commonjs", moduleResolution: "node" }],
    ["node16 (exports types)", { module: "node16", moduleResolution: "node16" }],
  ])(
    "the template program and the examples type-check against the installed package, %s resolution",
    async (_resolution, compilerOptions) => {
      const tsconfig = path.join(project, `tsconfig.check-${compilerOptions.moduleResolution}.json`);
      fs.writeFileSync(
        tsconfig,
        JSON.stringify({
          extends: "./tsconfig.json",
          compilerOptions: { ...compilerOptions, noEmit: true },
          files: ["index.ts", ...EXAMPLES.map((e) => `examples/${e}/index.ts`), "console-client-use.ts"],
        }),
      );
      fs.writeFileSync(path.join(project, "console-client-use.ts"), CONSOLE_CLIENT_USE);
      // the project's own compiler (the template's devDependency), as `tsc` in that project would run
      const tsc = path.join(project, "node_modules", "typescript", "bin", "tsc");
      await expect(run(process.execPath, [tsc, "-p", tsconfig], { cwd: project })).resolves.toBeDefined();
    },
  );

  test("examples/containerized previews with the real engine against a real API server", async () => {
    const stack = await projectStack(engine, path.join(project, "examples", "containerized"), "adoption");
    await stack.setAllConfig({
      kubeconfig: hostKubeconfig(),
      context: { value: HOST_CONTEXT },
    });
    await setStructuredConfig(stack, { "karmada-containerized:crds": crdSourceForTests() });
    const steps = await previewSteps(stack);
    expect(describeSteps(ofType(steps, "karmada:index:EtcdCluster"))).toEqual([
      "karmada:index:EtcdCluster etcd",
    ]);
    expect(describeSteps(ofType(steps, "karmada:index:KarmadaControlPlane"))).toEqual([
      "karmada:index:KarmadaControlPlane karmada",
    ]);
    // the program's own object inside Karmada, and the three etcd members it asks for
    expect(ofType(steps, "kubernetes:core/v1:Namespace").map((s) => s.name)).toContain("demo");
    const [etcd] = ofType(steps, "kubernetes:apps/v1:StatefulSet");
    expect(etcd.inputs.spec.replicas).toBe(3);
    expect(steps.every((s) => s.op === "create" || s.type === "pulumi:pulumi:Stack")).toBe(true);

    // the policy pack as the package ships it (compiled, bin/policy): the example asks for no backups
    const events: PolicyEvent[] = [];
    const checked = stack.preview({
      policyPacks: [path.join(project, "node_modules", "pulumi-karmada", "bin", "policy")],
      onEvent: (e) => {
        if (e.policyEvent) events.push(e.policyEvent);
      },
    });
    await expect(checked).rejects.toThrow(/preview failed/);
    expect(events.filter((e) => e.enforcementLevel === "mandatory")).toEqual([
      expect.objectContaining({
        policyName: "etcd-backups",
        policyPackName: "pulumi-karmada",
        resourceUrn: expect.stringMatching(/::karmada:index:EtcdCluster::etcd$/),
        message: expect.stringContaining('etcd "etcd" has no scheduled backup. Fix: etcd.inCluster.backup'),
      }),
    ]);
  });

  test("examples/members previews: two registrations and two addons", async () => {
    const stack = await projectStack(engine, path.join(project, "examples", "members"), "adoption");
    const kubeconfig = hostKubeconfig();
    await stack.setAllConfig({
      hostKubeconfig: kubeconfig,
      "edge-pushKubeconfig": kubeconfig,
      "edge-pullKubeconfig": kubeconfig,
    });
    await setStructuredConfig(stack, { "karmada-members:crds": crdSourceForTests() });
    const steps = await previewSteps(stack);
    expect(describeSteps(ofType(steps, "karmada:index:MemberRegistration"))).toEqual([
      "karmada:index:MemberRegistration edge-pull",
      "karmada:index:MemberRegistration edge-push",
    ]);
    expect(describeSteps(ofType(steps, "karmada:index:Addon"))).toEqual([
      "karmada:index:Addon descheduler",
      "karmada:index:Addon team-namespace",
    ]);
    const clusters = ofType(steps, "kubernetes:cluster.karmada.io/v1alpha1:Cluster");
    expect(clusters.map((c) => [c.inputs.metadata.name, c.inputs.spec.syncMode]).sort()).toEqual([
      ["edge-pull", "Pull"],
      ["edge-push", "Push"],
    ]);
  });

  test.each(TEMPLATE_STACKS)(
    "the template's %s stack previews the estate its committed stack file describes",
    async (stackName) => {
      const file = `Pulumi.${stackName}.yaml`;
      const committedText = fs.readFileSync(path.join(TEMPLATE_DIR, file), "utf8");
      const committed = (YAML.parse(committedText) as { config: Record<string, any> }).config;
      const stack = await projectStack(engine, project, stackName);
      // what only this machine knows: the host cluster's credentials, and CRDs from disk (no downloads here)
      await stack.setConfig("karmada:hostKubeconfig", hostKubeconfig());
      await stack.setConfig("karmada:hostContext", { value: HOST_CONTEXT });
      await setStructuredConfig(stack, { "karmada:crds": crdSourceForTests() });
      const steps = await previewSteps(stack);

      expect(describeSteps(ofType(steps, "karmada:index:EtcdCluster"))).toEqual([
        "karmada:index:EtcdCluster etcd",
      ]);
      expect(describeSteps(ofType(steps, "karmada:index:KarmadaControlPlane"))).toEqual([
        "karmada:index:KarmadaControlPlane karmada",
      ]);
      const deployments = ofType(steps, "kubernetes:apps/v1:Deployment");
      for (const component of [
        "karmada-apiserver",
        "karmada-controller-manager",
        "karmada-scheduler",
      ] as const)
        expect(deployments.map((d) => d.inputs.metadata.name)).toContain(objectNames.workload(component));
      expect(ofType(steps, "kubernetes:core/v1:Secret").length).toBeGreaterThan(0);
      expect(steps.every((s) => s.op === "create")).toBe(true);

      // the committed settings reached the manifests
      const [etcd] = ofType(steps, "kubernetes:apps/v1:StatefulSet");
      expect(etcd.inputs.spec.replicas).toBe(committed["karmada:etcd"].inCluster.replicas);
      const apiService = ofType(steps, "kubernetes:core/v1:Service").find(
        (s) => s.inputs.metadata.name === objectNames.workload("karmada-apiserver"),
      );
      expect(apiService?.inputs.spec.type).toBe(committed["karmada:controlPlane"].apiServer.serviceType);
      const registry = committed["karmada:controlPlane"].images?.registry;
      const images = [...deployments, etcd].flatMap((w) =>
        w.inputs.spec.template.spec.containers.map((c: { image: string }) => c.image),
      );
      if (registry) expect(images.filter((image) => !image.startsWith(`${registry}/`))).toEqual([]);

      // the CLI rewrote the stack file (encryption salt, secrets): every line of its documentation is still there
      const rewritten = new Set(fs.readFileSync(path.join(project, file), "utf8").split("\n"));
      const comments = committedText.split("\n").filter((line) => line.trim().startsWith("#"));
      expect(comments.filter((line) => !rewritten.has(line))).toEqual([]);
    },
  );

  test.each(TEMPLATE_STACKS)(
    "template Pulumi.%s.yaml: schema line first, every karmada:* setting named, valid against the published schema",
    (stackName) => {
      const file = `Pulumi.${stackName}.yaml`;
      const text = fs.readFileSync(path.join(TEMPLATE_DIR, file), "utf8");
      expect(text.split("\n")[0]).toBe(SCHEMA_LINE);
      const settings = acceptedSettings();
      // the published schema describes exactly those settings
      expect(Object.keys(schema.properties.config.properties).sort()).toEqual(
        settings.map((k) => `karmada:${k}`),
      );
      expect(settings.filter((key) => !namedKeys(text).has(key))).toEqual([]);
      const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
      expect({ file, valid: validate(YAML.parse(text)), errors: validate.errors ?? [] }).toEqual({
        file,
        valid: true,
        errors: [],
      });
    },
  );

  test("the template and the examples pin the package's version and the plugins the engine has", () => {
    const template = readJson(path.join(TEMPLATE_DIR, "package.json"));
    expect(template.dependencies[PACKAGE_NAME]).toBe(`^${repoPackage.version}`);
    const examples = EXAMPLES.map((e) => readJson(path.join(REPO_ROOT, "examples", e, "package.json")));
    for (const manifest of [template, ...examples])
      for (const sdk of ["@pulumi/pulumi", "@pulumi/kubernetes"])
        expect(`${manifest.name}: ${sdk}@${manifest.dependencies[sdk]}`).toBe(
          `${manifest.name}: ${sdk}@${repoPackage.dependencies[sdk]}`,
        );
  });
});

/** A TCP port free on loopback now (the console takes a port of 1-65535, not 0). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
