/**
 * The binary-estate bench's "same resources" floor: a project beside the estate's with the same name,
 * stack and settings, whose program (stateReplayProgram.ts) registers the estate's resources again from
 * its state, run against a copy of that state in a backend of its own. Its preview and no-change `up`
 * are what the CLI, engine, SDK and providers cost for exactly these resources; the estate's own
 * figures minus these are ours. The estate's state and hosts are never touched: the copy's steps are
 * all `same` (checked by the bench), so no provider creates, changes or deletes anything.
 */
import { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { projectFileForJavaScript, transpileSources } from "../../devkit/sandbox/program";
import { LOCAL_STACK, LocalStack } from "../../devkit/sandbox/stack";

/** The replay program's sources (relative to the repository) and its entry in the transpiled tree. */
const SOURCES = [
  "bench/support/stateReplayProgram.ts",
  "bench/support/stateReplay.ts",
  "bench/support/graphReplay.ts",
  "bench/support/graphMocks.ts",
];
const ENTRY = "program/bench/support/stateReplayProgram.js";

/** The replay's stack, and the plaintext export it reads removed when done. */
export interface SameResourcesStack {
  readonly stack: Stack;
  dispose(): void;
}

/**
 * Sets up the replay of the estate's current state in `<dir>/replay-project` (a fresh backend in
 * `<dir>/replay-state` each time) and selects its stack.
 */
export async function sameResourcesStack(dir: string, local: LocalStack): Promise<SameResourcesStack> {
  const project = path.join(dir, "replay-project");
  const backend = path.join(dir, "replay-state");
  fs.rmSync(backend, { recursive: true, force: true });
  fs.mkdirSync(backend, { recursive: true });
  transpileSources(path.join(project, "program"), SOURCES);
  const projectFile = fs.readFileSync(path.join(local.workDir, "Pulumi.yaml"), "utf8");
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), projectFileForJavaScript(projectFile, ENTRY));
  // the same package.json as the estate's project: the language host finds the program's root the same way
  const packageJson = path.join(project, "package.json");
  if (!fs.existsSync(packageJson))
    fs.symlinkSync(fs.realpathSync(path.join(local.workDir, "package.json")), packageJson);
  const settings = `Pulumi.${LOCAL_STACK}.yaml`;
  fs.copyFileSync(path.join(local.workDir, settings), path.join(project, settings));

  // the program reads inputs in plaintext (the test hosts' own keys): a directory only this user reads
  fs.chmodSync(project, 0o700);
  const plaintext = path.join(project, "deployment.json");
  const encrypted = path.join(project, "state-export.json");
  const dispose = () => {
    fs.rmSync(plaintext, { force: true });
    fs.rmSync(encrypted, { force: true });
  };
  try {
    local.run(["stack", "export", "--show-secrets", "--file", plaintext], { quiet: true });
    local.run(["stack", "export", "--file", encrypted], { quiet: true });
    const env = { ...local.env, PULUMI_BACKEND_URL: `file://${backend}`, PK_REPLAY_DEPLOYMENT: plaintext };
    const cli = (args: string[]) =>
      execFileSync(local.pulumi, ["--non-interactive", ...args], { cwd: project, env, stdio: "pipe" });
    cli(["stack", "select", "--create", "--secrets-provider", "passphrase", LOCAL_STACK]);
    cli(["stack", "import", "--file", encrypted]);
    const stack = await LocalWorkspace.selectStack(
      { stackName: LOCAL_STACK, workDir: project },
      {
        envVars: env,
        pulumiCommand: await PulumiCommand.get({ root: path.dirname(path.dirname(local.pulumi)) }),
      },
    );
    return { stack, dispose };
  } catch (err) {
    // no plaintext export left behind by a set-up that failed
    dispose();
    throw err;
  }
}
