/** Runs a Pulumi program module (stack or example) under recording mocks with the given config. */
import * as pulumi from "@pulumi/pulumi";
import * as settings from "@pulumi/pulumi/runtime/settings";
import { Registration, recordResources } from "./mocks";

/**
 * Waits until the program has registered everything: the runtime's RPC queue is drained (what the engine
 * itself waits for before it ends a program) and stays drained with no new registration for `quietMs`.
 * A fixed quiet period alone returned early on a loaded CI machine.
 */
export async function untilQuiet(records: Registration[], quietMs = 300, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  while (Date.now() < deadline) {
    // waitForRPCs is internal to @pulumi/pulumi (not in its typings) but is the engine's own drain check
    await (settings as unknown as { waitForRPCs: () => Promise<void> }).waitForRPCs();
    if (records.length === last) return;
    last = records.length;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
  throw new Error(`program kept registering resources for ${timeoutMs}ms`);
}

/** Imports `modulePath` as the program, with `config` (fully qualified keys, objects JSON-encoded). */
export async function runProgram(
  modulePath: string,
  config: Record<string, unknown>,
  secretKeys: string[] = [],
  /** Runs after the mocks are installed, before the program is imported (e.g. controller stand-ins). */
  beforeImport?: () => void,
): Promise<{ records: Registration[]; exports: Record<string, unknown> }> {
  const records = recordResources();
  beforeImport?.();
  pulumi.runtime.setAllConfig(
    Object.fromEntries(
      Object.entries(config).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
    ),
    secretKeys,
  );
  const exports = await import(modulePath);
  await untilQuiet(records);
  return { records, exports };
}
