/**
 * `npm run console:local`: the console (docs/console.md) over `npm start`'s estate — the `local` stack of
 * the sandbox's project copy, run with the engine environment `npm start` uses (its state backend and
 * passphrase, the test bed's CLI and plugins). Flags after `--` go to the console; a token is required as
 * always (`PULUMI_KARMADA_CONSOLE_TOKEN` or `--tokens-file`).
 *
 *   PULUMI_KARMADA_CONSOLE_TOKEN=$(openssl rand -hex 32) npm run console:local
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { findBinary, REPO_ROOT } from "../../devkit/testbed";
import { sandboxDir } from "../../devkit/sandbox/estate";
import { localEngineEnv } from "../../devkit/sandbox/stack";

function main(argv: readonly string[]): void {
  const dir = sandboxDir();
  const project = path.join(dir, "project");
  if (!fs.existsSync(path.join(project, "Pulumi.yaml"))) {
    console.error(`[console] no local estate in ${dir}: run npm start first`);
    process.exit(2);
  }
  const engineEnv = localEngineEnv(dir);
  const pulumi = findBinary("pulumi", engineEnv);
  const child = spawn(
    path.join(REPO_ROOT, "node_modules", ".bin", "ts-node"),
    [
      "--transpile-only",
      path.join(REPO_ROOT, "console", "server", "main.ts"),
      "--program",
      project,
      ...(pulumi ? ["--pulumi", pulumi] : []),
      ...argv,
    ],
    { stdio: "inherit", env: { ...process.env, ...engineEnv } },
  );
  // the console waits for running operations before it exits: pass the signal on, then wait for it
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main(process.argv.slice(2));
