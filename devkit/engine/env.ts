/**
 * The environment the real Pulumi engine runs in for e2e tests: the test bed's CLI and plugins, a file
 * backend in a temporary directory (or the backend a suite names: a team's PostgreSQL), a throw-away
 * passphrase, and nothing fetched from the network.
 */
import { PulumiCommand } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { findBinary, testbedEnv, testbedEnvFile } from "../testbed";

/** Passphrase of the e2e stacks' secrets: protects throw-away test state only. */
export const E2E_PASSPHRASE = "pulumi-karmada-e2e-throwaway";

/**
 * Settings every engine run gets: offline plugins, no update check, no type-check of the program — from
 * scripts/testbed/engine.env, the one definition the test bed's shell environment sources too.
 */
export const OFFLINE_ENGINE_SETTINGS: Readonly<Record<string, string>> = testbedEnvFile("engine.env");

/**
 * What e2e engine runs add: the state written once per operation, not after every step. Each checkpoint
 * rewrites the whole state file, so an operation on an estate of a few hundred resources spends most of
 * the engine's CPU on them (docs/performance.md: 23.5 s of 26.5 s for ten members); on the 2-core CI
 * machine that is minutes per run. The suites read the state between operations, never during one. The
 * interruption suite, which kills an `up` and needs what it had saved, keeps them (`checkpoints: true`),
 * and so do `npm start` and every user: this is a test-time setting only.
 */
export const E2E_ENGINE_SETTINGS: Readonly<Record<string, string>> = {
  PULUMI_SKIP_CHECKPOINTS: "true",
};

/** Options of `createEngineEnv`. */
export interface EngineEnvOptions {
  /** Save the state after every step, as the engine does by default. @default false */
  readonly checkpoints?: boolean;
  /**
   * The state backend (`postgres://…`, as `pulumi login` takes it); the caller owns it.
   * @default a file backend in the environment's directory
   */
  readonly backendUrl?: string;
  /** The backend's credentials, kept out of its URL (`PGPASSWORD` for PostgreSQL). @default none */
  readonly backendCredentials?: Readonly<Record<string, string>>;
}

/** A private engine environment (one per test file). */
export interface EngineEnv {
  /** Temporary directory holding the backend state and generated projects. */
  readonly dir: string;
  /** `file://<dir>/state`, or the backend the options named */
  readonly backendUrl: string;
  /** Environment for every pulumi command (PATH, PULUMI_HOME, backend, passphrase, offline settings). */
  readonly env: Readonly<Record<string, string>>;
  /** The pulumi executable used. */
  readonly pulumiBinary: string;
  /** The CLI for the Automation API. */
  pulumiCommand(): Promise<PulumiCommand>;
  /** Removes `dir` (the backend state included). */
  cleanup(): void;
}

/** The environment of an engine run, built from the test-bed environment `base` (PATH, PULUMI_HOME). */
export function engineEnvironment(
  base: Readonly<Record<string, string>>,
  backendUrl: string,
): Record<string, string> {
  const env: Record<string, string> = {
    ...OFFLINE_ENGINE_SETTINGS,
    PATH: base.PATH ?? "",
    PULUMI_BACKEND_URL: backendUrl,
    PULUMI_CONFIG_PASSPHRASE: E2E_PASSPHRASE,
  };
  if (base.PULUMI_HOME) env.PULUMI_HOME = base.PULUMI_HOME;
  return env;
}

/** Creates an engine environment; throws when no pulumi CLI is found (the tier guard checks first). */
export function createEngineEnv(prefix = "pk-engine-", options: EngineEnvOptions = {}): EngineEnv {
  const base = testbedEnv().env;
  const pulumiBinary = findBinary("pulumi", base);
  if (!pulumiBinary) throw new Error("no pulumi CLI on the test-bed PATH (scripts/testbed/build.sh engine)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const stateDir = path.join(dir, "state");
  fs.mkdirSync(stateDir);
  const backendUrl = options.backendUrl ?? `file://${stateDir}`;
  const env = {
    ...engineEnvironment(base, backendUrl),
    ...options.backendCredentials,
    ...(options.checkpoints ? {} : E2E_ENGINE_SETTINGS),
  };
  return {
    dir,
    backendUrl,
    env,
    pulumiBinary,
    // PulumiCommand looks for <root>/bin/pulumi
    pulumiCommand: () => PulumiCommand.get({ root: path.dirname(path.dirname(pulumiBinary)) }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
