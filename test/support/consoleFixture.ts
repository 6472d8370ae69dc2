/**
 * The console served with the real engine: over a program's project directory (`serveConsole`, e.g. the
 * local estate's), or over test/fixtures/console-program, a program shaped like an estate
 * (`startConsoleFixture`: a private engine environment, the program's stack `dev` with its settings, a
 * secret key among them). For the console's API and browser tests.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { buildConsoleApp, ConsoleApp } from "../../console/server/app";
import { ConsoleClient } from "../../console/client";
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

/** The console listening on loopback. */
export interface ServedConsole {
  readonly console: ConsoleApp;
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** The typed client with token `ci`. */
  readonly client: ConsoleClient;
  /** Stops listening once every operation has ended. */
  stop(): Promise<void>;
}

export interface ConsoleFixture extends ServedConsole {
  readonly engine: EngineEnv;
  readonly programDir: string;
  /** The stack `dev`, driven past the console (to read what the console must not send). */
  readonly stack: Stack;
}

/** Where the console finds a program and its engine. */
export interface ConsoleProgram {
  readonly programDir: string;
  readonly engineEnv: Readonly<Record<string, string>>;
  readonly pulumiBinary: string;
  readonly dataDir: string;
}

/** Serves the console (web console compiled first) over `program` on loopback with {@link CONSOLE_TOKENS}. */
export async function serveConsole(program: ConsoleProgram, web = true): Promise<ServedConsole> {
  if (web) buildWebConsole();
  const app = await buildConsoleApp({
    host: "127.0.0.1",
    port: 0,
    tokens: new Map(Object.entries(CONSOLE_TOKENS)),
    ...program,
  });
  const baseUrl = await app.app.listen({ host: "127.0.0.1", port: 0 });
  return {
    console: app,
    baseUrl,
    client: new ConsoleClient(baseUrl, CONSOLE_TOKENS.ci),
    stop: async () => {
      await app.app.close();
      await app.idle();
    },
  };
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
  const served = await serveConsole(
    {
      programDir,
      dataDir: path.join(engine.dir, "console"),
      engineEnv: { ...engine.env },
      pulumiBinary: engine.pulumiBinary,
    },
    web,
  );
  return {
    ...served,
    engine,
    programDir,
    stack,
    stop: async () => {
      await served.stop();
      engine.cleanup();
    },
  };
}
