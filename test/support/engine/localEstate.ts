/**
 * The local estate of `npm start` (scripts/sandbox/) for e2e suites and benchmarks: the same bed, the same
 * stacks program and Pulumi.local.yaml settings, in a private directory, driven through the Automation API
 * with the real CLI, language host and plugins. One estate per suite, shared by its checks.
 */
import { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stopPullAgent } from "../../../scripts/sandbox/agent";
import { Bed, readLayout, startBed, stopBed } from "../../../scripts/sandbox/bed";
import { LOCAL_STACK, LocalStack, prepareLocalStack, SettingsEdit } from "../../../scripts/sandbox/stack";

/** A running local estate (processes started, stack prepared, nothing deployed yet). */
export interface LocalEstate {
  readonly dir: string;
  readonly bed: Bed;
  /** The stack with the repository's settings, changed by `edit` (e.g. a component upgrade). */
  stack(edit?: SettingsEdit): Promise<{ stack: Stack; local: LocalStack }>;
  /** Stops every process of the estate and removes its directory (no `destroy`: call that first). */
  stop(): Promise<void>;
}

/** Starts the bed of the local estate in a new temporary directory. */
export async function startLocalEstate(prefix = "pk-local-"): Promise<LocalEstate> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const stop = async () => {
    for (const m of readLayout().members) await stopPullAgent(dir, m.clusterName);
    await stopBed(dir);
    if (!process.env.PK_KEEP_TESTBED) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const bed = await startBed(dir);
    return {
      dir,
      bed,
      stop,
      stack: async (edit) => {
        const local = prepareLocalStack(dir, bed, edit);
        const stack = await LocalWorkspace.selectStack(
          { stackName: LOCAL_STACK, workDir: local.workDir },
          {
            envVars: { ...local.env },
            pulumiCommand: await PulumiCommand.get({ root: path.dirname(path.dirname(local.pulumi)) }),
          },
        );
        return { stack, local };
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
