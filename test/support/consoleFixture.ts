/**
 * The console served over test/fixtures/console-program (a program shaped like an estate) with the real
 * engine: a private engine environment, the program's stack `dev` with its settings (a secret key among
 * them), and the console app listening on loopback. For the console's API and browser tests.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { buildConsoleApp, ConsoleApp } from "../../console/server/app";
import { createEngineEnv, EngineEnv } from "../../devkit/engine/env";
import { REPO_ROOT } from "../../devkit/testbed";

/** The console's tokens in these tests. */
export const CONSOLE_TOKENS = {
  ci: "ci-console-token-0123456789abcdef0123456789",
  other: "other-console-token-abcdef0123456789abcdef",
} as const;

/** A private key shape, as the estate's `karmada:sshPrivateKey` is. */
export const FIXTURE_SSH_KEY = [
  "-----BEGIN OPENSSH PRIVATE KEY-----",
  "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
  "QyNTUxOQAAACDk0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL0000000000",
  "-----END OPENSSH PRIVATE KEY-----",
].join("\n");

/** An image reference of the fixture's settings. */
export const fixtureImage = (component: string, tag: string) => `registry.local/karmada/${component}:${tag}`;

export interface ConsoleFixture {
  readonly engine: EngineEnv;
  readonly programDir: string;
  /** The stack `dev`, driven past the console (to read what the console must not send). */
  readonly stack: Stack;
  readonly console: ConsoleApp;
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/** Compiles the web console's scripts (console/web/dist), as `npm run console` does first. */
export function buildWebConsole(): void {
  execFileSync(path.join(REPO_ROOT, "node_modules", ".bin", "tsc"), ["-p", "console/web/tsconfig.json"], {
    cwd: REPO_ROOT,
    stdio: "inherit",
  });
}

/**
 * Starts the fixture: engine, program copy, stack `dev`, console listening.
 * @param web compile the web console first (its files are read when the app is built)
 */
export async function startConsoleFixture(prefix: string, web = false): Promise<ConsoleFixture> {
  if (web) buildWebConsole();
  const engine = createEngineEnv(prefix);
  const programDir = path.join(engine.dir, "program");
  fs.cpSync(path.join(REPO_ROOT, "test", "fixtures", "console-program"), programDir, { recursive: true });
  // the program's @pulumi/* resolve from the repository's node_modules
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(programDir, "node_modules"));
  const workspace = await LocalWorkspace.create({
    workDir: programDir,
    envVars: { ...engine.env },
    pulumiCommand: await engine.pulumiCommand(),
  });
  const stack = await Stack.create("dev", workspace);
  await stack.setConfig("karmada:controlPlane", {
    value: JSON.stringify({
      components: {
        scheduler: { image: fixtureImage("karmada-scheduler", "v1.18.2") },
        webhook: { image: fixtureImage("karmada-webhook", "v1.18.2") },
      },
    }),
  });
  await stack.setConfig("karmada:sshPrivateKey", { value: FIXTURE_SSH_KEY, secret: true });
  const app = await buildConsoleApp({
    host: "127.0.0.1",
    port: 0,
    programDir,
    tokens: new Map(Object.entries(CONSOLE_TOKENS)),
    dataDir: path.join(engine.dir, "console"),
    engineEnv: { ...engine.env },
    pulumiBinary: engine.pulumiBinary,
  });
  const baseUrl = await app.app.listen({ host: "127.0.0.1", port: 0 });
  return {
    engine,
    programDir,
    stack,
    console: app,
    baseUrl,
    stop: async () => {
      await app.app.close();
      await app.idle();
      engine.cleanup();
    },
  };
}
