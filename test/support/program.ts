/** Runs a Pulumi program module (stack or example) under recording mocks with the given config. */
import * as pulumi from "@pulumi/pulumi";
import { Registration, recordResources } from "./mocks";

/** Waits until no new resource has been registered for a while (CRDs and controllers register asynchronously). */
export async function untilQuiet(records: Registration[], quietMs = 300, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  while (Date.now() < deadline) {
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
