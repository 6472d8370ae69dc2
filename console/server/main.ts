#!/usr/bin/env node
/**
 * `npm run console` (in a checkout) or `pulumi-karmada-console` (the package's command): serves the console
 * API and web console for one Pulumi program's stacks.
 *
 *   PULUMI_KARMADA_CONSOLE_TOKEN=$(openssl rand -hex 32) npm run console -- --program .
 *   npm run console -- --program /srv/estate --tokens-file /etc/pulumi-karmada/tokens --port 8750
 *
 * Listens on 127.0.0.1 unless `--host` says otherwise. Exits 2 on bad settings (naming the flag).
 */
import { configErrorsOf } from "../../lib/validation/errors";
import { buildConsoleApp, OPENAPI_PATH } from "./app";
import { resolveConsoleSettings } from "./settings";

async function main(argv: readonly string[]): Promise<number> {
  let settings;
  try {
    settings = resolveConsoleSettings(argv);
  } catch (e) {
    if (configErrorsOf(e).length === 0) throw e;
    console.error((e as Error).message);
    return 2;
  }
  const { app, idle, recoveredPreviews } = await buildConsoleApp(settings);
  for (const stack of recoveredPreviews)
    console.log(`[console] ${stack}: put back its settings file, left edited by a preview cut short`);
  const address = await app.listen({ host: settings.host, port: settings.port });
  console.log(`[console] ${address}/ (API ${address}/api/v1, OpenAPI ${address}${OPENAPI_PATH})`);
  console.log(`[console] program ${settings.programDir}; tokens: ${[...settings.tokens.keys()].join(", ")}`);
  // a signal may come twice (the terminal's and the one npm passes on): neither cuts an operation short
  await new Promise<void>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => resolve());
  });
  console.log("[console] stopping: waiting for running operations to end");
  await app.close();
  await idle();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
