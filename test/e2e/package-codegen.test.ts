/**
 * provider/schema.json through the real Pulumi code generators (`pulumi package gen-sdk`, the language
 * hosts of the test bed's engine): the Python, Go and Node.js SDKs a program in those languages gets are
 * generated without complaint and are valid code — Python byte-compiles and defines the four component
 * classes (secret outputs registered as such), Go passes `go vet` against the Pulumi SDK of the engine's
 * version, Node.js type-checks. C# and Java are not covered: their language hosts are not in the test bed.
 *
 * One generation per language serves every check (CI time).
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import { e2eTier } from "../../devkit/engine";
import { REPO_ROOT, testbedEnv } from "../../devkit/kube";
import { LANGUAGE } from "../../provider/schema/package";
import { SCHEMA_FILE } from "../../provider/schema/json";

jest.setTimeout(10 * 60_000);

/** Per component, the output properties the schema marks secret (what the SDK must register as such). */
function secretOutputsOfSchema(): string[][] {
  const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, SCHEMA_FILE), "utf8")) as {
    resources: Record<string, { properties: Record<string, { secret?: boolean }> }>;
  };
  return Object.values(schema.resources)
    .map((r) =>
      Object.keys(r.properties)
        .filter((key) => r.properties[key].secret)
        .sort(),
    )
    .filter((keys) => keys.length > 0)
    .sort();
}

const tier = e2eTier("package schema through the real SDK generators (test/e2e/package-codegen.test.ts)", {
  binaries: [
    "pulumi",
    "pulumi-language-python",
    "pulumi-language-go",
    "pulumi-language-nodejs",
    "python3",
    "go",
  ],
  // the generators load its schema for the `/kubernetes/v…/schema.json` references
  plugins: ["kubernetes"],
});

const run = promisify(execFile);
const LANGUAGES = ["python", "go", "nodejs"] as const;
type Language = (typeof LANGUAGES)[number];
const COMPONENTS = ["EtcdCluster", "KarmadaControlPlane", "MemberRegistration", "Addon"];
const versionOf = (pkg: string): string =>
  (
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", pkg, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

/**
 * Lists, as JSON, each class of a Python package that derives from `pulumi.ComponentResource` with the
 * token of its `@pulumi.type_token` decorator, and each `additional_secret_outputs` list — read from the
 * syntax tree, so that the Pulumi SDK need not be installed.
 */
const PYTHON_CLASSES = `
import ast, json, pathlib, sys
found = {"components": {}, "secretOutputs": []}
for file in pathlib.Path(sys.argv[1]).rglob("*.py"):
    for node in ast.walk(ast.parse(file.read_text())):
        if isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "pulumi.ComponentResource" for b in node.bases):
            tokens = [d.args[0].value for d in node.decorator_list if isinstance(d, ast.Call) and ast.unparse(d.func) == "pulumi.type_token"]
            found["components"][node.name] = tokens[0] if tokens else None
        if isinstance(node, ast.keyword) and node.arg == "additional_secret_outputs":
            found["secretOutputs"].append(sorted(ast.literal_eval(node.value)))
print(json.dumps(found))
`;

tier.describe("package schema → SDKs (pulumi package gen-sdk)", () => {
  const { env } = testbedEnv();
  let out: string;
  const generation = new Map<Language, { stdout: string; stderr: string }>();
  const sdk = (language: Language): string => path.join(out, language, language);

  beforeAll(async () => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), "pk-codegen-"));
    const schema = path.join(REPO_ROOT, SCHEMA_FILE);
    await Promise.all(
      LANGUAGES.map(async (language) => {
        const args = [
          "package",
          "gen-sdk",
          schema,
          "--language",
          language,
          "--out",
          path.join(out, language),
        ];
        generation.set(language, await run("pulumi", args, { env, cwd: out }));
      }),
    );
  });

  afterAll(() => {
    if (out) fs.rmSync(out, { recursive: true, force: true });
  });

  it.each(LANGUAGES)("generates the %s SDK without errors or warnings", (language) => {
    const { stdout, stderr } = generation.get(language)!;
    expect(`${stdout}\n${stderr}`.split(out).join("<out>")).not.toMatch(/warning|error/i);
    expect(fs.existsSync(sdk(language))).toBe(true);
  });

  it("Python: byte-compiles, defines the four components under their tokens, registers secret outputs", async () => {
    const packageDir = path.join(sdk("python"), LANGUAGE.python.packageName);
    await run("python3", ["-m", "compileall", "-q", packageDir], { env });
    const { stdout } = await run("python3", ["-c", PYTHON_CLASSES, packageDir], { env });
    const found = JSON.parse(stdout) as { components: Record<string, string>; secretOutputs: string[][] };
    expect(found.components).toEqual(Object.fromEntries(COMPONENTS.map((c) => [c, `karmada:index:${c}`])));
    expect(found.secretOutputs.sort()).toEqual(secretOutputsOfSchema());
    const pyproject = fs.readFileSync(path.join(sdk("python"), "pyproject.toml"), "utf8");
    expect(pyproject).toContain(`version = "${repoVersion()}"`);
  });

  it("Go: the module passes go vet against the Pulumi SDKs of the engine's versions", async () => {
    const importBase = LANGUAGE.go.importBasePath;
    const modulePath = importBase.slice(0, importBase.lastIndexOf("/"));
    fs.writeFileSync(
      path.join(sdk("go"), "go.mod"),
      [
        `module ${modulePath}`,
        "",
        "go 1.22",
        "",
        "require (",
        `\tgithub.com/pulumi/pulumi/sdk/v3 v${versionOf("@pulumi/pulumi")}`,
        `\tgithub.com/pulumi/pulumi-kubernetes/sdk/v4 v${versionOf("@pulumi/kubernetes")}`,
        ")",
        "",
      ].join("\n"),
    );
    // the repository's Go convention (devkit/engine/languageProject.ts): no checksum database
    const goEnv = { ...env, GOFLAGS: "-mod=mod", GOSUMDB: env.GOSUMDB ?? "off", GOTOOLCHAIN: "local" };
    await run("go", ["mod", "tidy"], { env: goEnv, cwd: sdk("go") });
    await run("go", ["vet", "./..."], { env: goEnv, cwd: sdk("go") });
  });

  it("Node.js: type-checks against the repository's @pulumi/pulumi and @pulumi/kubernetes", async () => {
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(sdk("nodejs"), "node_modules"), "dir");
    const tsc = path.join(REPO_ROOT, "node_modules", ".bin", "tsc");
    await run(tsc, ["-p", path.join(sdk("nodejs"), "tsconfig.json"), "--noEmit"], { env });
    const manifest = JSON.parse(fs.readFileSync(path.join(sdk("nodejs"), "package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: LANGUAGE.nodejs.packageName, version: repoVersion() });
  });
});

/** This package's version (package.json), which every SDK must carry. */
function repoVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
    .version;
}
