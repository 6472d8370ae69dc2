/**
 * Automation API stacks for e2e tests, on an {@link EngineEnv}: the repository's config-driven stacks
 * program (run by the real CLI and Node.js language host, exactly as `pulumi up` would), or an inline
 * program (run in the test process).
 */
import { LocalWorkspace, PulumiFn, Stack } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as path from "path";
import { EngineEnv } from "./env";
import { mirrorStacksProject } from "./project";
import { setStructuredConfig } from "./config";

/** Providers a program may not use implicitly (the repository's Pulumi.yaml says the same). */
const DISABLED_DEFAULT_PROVIDERS = ["kubernetes"];

async function workspaceOptions(engine: EngineEnv) {
  return {
    envVars: { ...engine.env },
    pulumiCommand: await engine.pulumiCommand(),
    secretsProvider: "passphrase",
  };
}

/** Where the project copy of {@link stacksProgramStack} lives. */
export const stacksProjectDir = (engine: EngineEnv) => path.join(engine.dir, "project");

/**
 * A new stack of the repository's stacks program (`stacks/index.ts`, `karmada:*` config), in a project
 * copy under the engine's directory (of the tree at `programRoot`: another release's, for the upgrade
 * gate). Stack config goes to that copy, never to the repository.
 */
export async function stacksProgramStack(
  engine: EngineEnv,
  stackName: string,
  programRoot?: string,
): Promise<Stack> {
  const workDir = mirrorStacksProject(stacksProjectDir(engine), programRoot);
  return LocalWorkspace.createStack({ stackName, workDir }, await workspaceOptions(engine));
}

/** Options of {@link inlineProgramStack}. */
export interface InlineStackOptions {
  readonly stackName: string;
  /** @default "pulumi-karmada-e2e" */
  readonly projectName?: string;
  readonly program: PulumiFn;
}

/**
 * A new stack running `program` in this process, with the kubernetes default provider disabled (as in the
 * repository's project), so a resource without an explicit provider fails instead of using ~/.kube/config.
 */
export async function inlineProgramStack(engine: EngineEnv, options: InlineStackOptions): Promise<Stack> {
  const projectName = options.projectName ?? "pulumi-karmada-e2e";
  const workDir = path.join(engine.dir, `inline-${projectName}`);
  fs.mkdirSync(workDir, { recursive: true });
  const stack = await LocalWorkspace.createStack(
    { stackName: options.stackName, projectName, program: options.program },
    {
      ...(await workspaceOptions(engine)),
      workDir,
      projectSettings: { name: projectName, runtime: "nodejs" },
    },
  );
  await setStructuredConfig(stack, { "pulumi:disable-default-providers": DISABLED_DEFAULT_PROVIDERS });
  return stack;
}
