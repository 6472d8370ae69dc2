/**
 * Projects in other Pulumi languages (examples/python, examples/yaml, examples/go) that use the
 * components through the component provider plugin (provider/). Each runs from a private copy — the CLI
 * writes stack files, virtualenvs and generated SDKs next to Pulumi.yaml — whose `packages` entry points at
 * the checkout's plugin, after the library (with the plugin's entry point) has been compiled once.
 */
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../testbed";
import { EngineEnv } from "./env";

/** The plugin directory `pulumi package add` / `packages:` name. */
const PLUGIN_DIR = path.join(REPO_ROOT, "provider");

let built = false;
/** Compiles the library and the plugin's entry point into bin/ (once per test process). */
function buildComponentPlugin(): void {
  if (built) return;
  execFileSync("npm", ["run", "--silent", "build"], { cwd: REPO_ROOT, stdio: "pipe" });
  built = true;
}

/** Environment of CLI commands run outside the Automation API: the engine's, plus the toolchains' caches. */
export function commandEnv(engine: EngineEnv): NodeJS.ProcessEnv {
  return { ...process.env, ...engine.env, GOSUMDB: process.env.GOSUMDB ?? "off", GOFLAGS: "-mod=mod" };
}

/**
 * Copies example `example` (a directory under examples/) into the engine's directory, points its
 * `packages.karmada` at {@link PLUGIN_DIR}, and runs `pulumi install` there (virtualenv or Go modules,
 * and the local SDK generated from the plugin's schema). Returns the copy's directory.
 */
export function installLanguageProject(engine: EngineEnv, example: string): string {
  buildComponentPlugin();
  const dir = path.join(engine.dir, `project-${example}`);
  fs.cpSync(path.join(REPO_ROOT, "examples", example), dir, {
    recursive: true,
    filter: (src) => !/(^|\/)(venv|sdks|__pycache__|Pulumi\.[^/]+\.yaml)$/.test(src),
  });
  const manifest = path.join(dir, "Pulumi.yaml");
  const text = fs.readFileSync(manifest, "utf8");
  const pointed = text.replace(/^(\s+karmada:\s*)\.\.\/\.\.\/provider\s*$/m, `$1${PLUGIN_DIR}`);
  if (pointed === text)
    throw new Error(`${example}/Pulumi.yaml: no "packages: karmada: ../../provider" entry`);
  fs.writeFileSync(manifest, pointed);
  execFileSync(engine.pulumiBinary, ["install"], { cwd: dir, env: commandEnv(engine), stdio: "pipe" });
  return dir;
}

/** A new stack of the project in `workDir` (after {@link installLanguageProject}). */
export async function languageProjectStack(
  engine: EngineEnv,
  workDir: string,
  stackName: string,
): Promise<Stack> {
  return LocalWorkspace.createStack(
    { stackName, workDir },
    {
      envVars: commandEnv(engine) as Record<string, string>,
      pulumiCommand: await engine.pulumiCommand(),
      secretsProvider: "passphrase",
    },
  );
}
