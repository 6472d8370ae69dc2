/**
 * An etcd-on-hosts estate deployed by `pulumi up` itself: loopback hosts with real sshds (testbed.ts),
 * the test-bed etcd binaries placed on each host, and a stack of devkit/programs/etcd-hosts run by
 * the real Pulumi CLI, Node.js language host and provider plugins (Automation API, file backend). Tests
 * change the program's input and call `up` / `destroy`, nothing else.
 */
import { EngineEvent, LocalWorkspace, Stack, UpResult } from "@pulumi/pulumi/automation";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { EtcdProgramInput, HostInput, INPUT_ENV } from "../programs/etcd-hosts/input";
import { createEngineEnv, EngineEnv, EngineEnvOptions } from "../engine/env";
import { EtcdBinaries, findEtcd } from "./etcdBinaries";
import { EtcdTestClient } from "./etcdClient";
import { commandTimer, etcdProgramProject, HOST_ETCD_BIN, placeEtcdBinaries } from "./etcdProgram";
import { startTestBed, TestBed, TestBedOptions } from "./testbed";

/** The program's `etcd` input. */
export type EtcdInput = EtcdProgramInput["etcd"];

/** The stack outputs the suites read (see the program). */
interface EtcdStackOutputs {
  readonly clientUrls: string[];
  readonly caCertPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  /** Whether `clientKeyPem` came back as a secret output. */
  readonly clientKeyIsSecret: boolean;
  readonly snapshotCommand?: { readonly host: string; readonly path: string };
}

/** Output of one SSH session. */
interface SshResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running estate (one per test file). */
export interface EtcdStack {
  readonly bed: TestBed;
  readonly etcd: EtcdBinaries;
  readonly engine: EngineEnv;
  readonly stack: Stack;
  /** Wall time of each engine run, in seconds, by label. */
  readonly timings: Record<string, number>;
  /** Host inputs for `names` (the test key, pinned host keys, each host's root). */
  hosts(names: readonly string[]): HostInput[];
  /** The program's input for `names`: supervisor runner, the placed binaries, `extra` over it. */
  input(names: readonly string[], extra?: Partial<EtcdInput>): EtcdInput;
  /** Writes `etcd` as the program's input and runs `pulumi up`; prints its wall time. */
  up(label: string, etcd: EtcdInput, onEvent?: (event: EngineEvent) => void): Promise<UpResult>;
  /** Like {@link up} but expects the update to fail; returns the error (its message holds the CLI output). */
  upFailing(label: string, etcd: EtcdInput): Promise<Error>;
  /** `pulumi destroy` with the last input; prints its wall time. */
  destroy(label: string): Promise<void>;
  /** The current stack outputs. */
  outputs(): Promise<EtcdStackOutputs>;
  /**
   * The stack's state as the backend stores it (secrets encrypted). `stack.exportStack()` would not do:
   * the Automation API exports with `--show-secrets`.
   */
  storedState(): string;
  /** A client with the stack's client certificate against the named members (call after an `up`). */
  client(names: readonly string[]): Promise<EtcdTestClient>;
  /** Runs `command` on host `name` over SSH with the test key, its host key pinned. */
  ssh(name: string, command: string): Promise<SshResult>;
  /** Kills what our scripts started on the hosts, stops the sshds, removes every temporary file. */
  stop(): Promise<void>;
}

/** Runs `command` with `args`, collecting output (stdin closed). */
function run(command: string, args: string[]): Promise<SshResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * Starts the test bed, places etcd, and creates the stack `stackName` (nothing deployed yet), running
 * the program's TypeScript source or, when given, `compiledProgram` (see etcdProgramProject).
 */
export async function startEtcdStack(
  stackName: string,
  bedOptions: TestBedOptions,
  compiledProgram?: string,
  engineOptions: EngineEnvOptions = {},
): Promise<EtcdStack> {
  const etcd = findEtcd();
  console.log(`etcd under test: ${etcd.version} from ${etcd.origin}`);
  const engine = createEngineEnv(`pk-${stackName}-`, engineOptions);
  let bed: TestBed | undefined;
  const clients: EtcdTestClient[] = [];
  const stop = async () => {
    clients.forEach((c) => c.close());
    await bed?.stop();
    if (!process.env.PK_KEEP_TESTBED) engine.cleanup();
  };
  try {
    bed = await startTestBed(bedOptions);
    placeEtcdBinaries(bed, etcd);
    const testBed = bed;
    // the throw-away SSH key travels in this file: owner-only, like a stack's secret config
    const inputFile = path.join(engine.dir, "etcd-input.json");
    const writeInput = (input: EtcdProgramInput) => {
      fs.writeFileSync(`${inputFile}.tmp`, JSON.stringify(input), { mode: 0o600 });
      fs.renameSync(`${inputFile}.tmp`, inputFile);
    };
    const workDir = etcdProgramProject(path.join(engine.dir, "project"), compiledProgram);
    const stack = await LocalWorkspace.createStack(
      { stackName, workDir },
      {
        envVars: { ...engine.env, [INPUT_ENV]: inputFile },
        pulumiCommand: await engine.pulumiCommand(),
        secretsProvider: "passphrase",
      },
    );
    const timings: Record<string, number> = {};
    const timed = async <T>(label: string, body: () => Promise<T>): Promise<T> => {
      const started = Date.now();
      try {
        return await body();
      } finally {
        timings[label] = (Date.now() - started) / 1000;
        console.log(`${label}: ${timings[label].toFixed(1)} s`);
      }
    };
    const outputs = async (): Promise<EtcdStackOutputs> => {
      const out = await stack.outputs();
      return {
        clientUrls: out.clientUrls?.value ?? [],
        caCertPem: out.caCertPem?.value,
        clientCertPem: out.clientCertPem?.value,
        clientKeyPem: out.clientKeyPem?.value,
        clientKeyIsSecret: out.clientKeyPem?.secret === true,
        snapshotCommand: out.snapshotCommand?.value,
      };
    };
    const estate: EtcdStack = {
      bed: testBed,
      etcd,
      engine,
      stack,
      timings,
      hosts: (names) =>
        names.map((name) => {
          const h = testBed.hosts.find((host) => host.name === name);
          if (!h) throw new Error(`no test host ${name}`);
          const { address, port, root, hostKey } = h;
          return { name, address, port, root, hostKey, privateKey: testBed.clientKey };
        }),
      input: (names, extra = {}) => ({
        hosts: estate.hosts(names),
        version: etcd.version,
        artifact: { path: HOST_ETCD_BIN },
        serviceManager: "supervisor",
        ...extra,
      }),
      up: async (label, input, onEvent) => {
        writeInput({ etcd: input });
        const steps = commandTimer();
        try {
          return await timed(label, () =>
            stack.up({
              color: "never",
              onEvent: (e) => {
                steps.onEvent(e);
                onEvent?.(e);
              },
            }),
          );
        } finally {
          console.log(`${label}: remote commands (s): ${steps.summary()}`);
        }
      },
      upFailing: async (label, input) => {
        writeInput({ etcd: input });
        const error = await timed(label, () => stack.up({ color: "never" })).then(
          () => undefined,
          (e: Error) => e,
        );
        if (!error) throw new Error(`${label}: expected the update to fail, it succeeded`);
        return error;
      },
      destroy: async (label) => {
        await timed(label, () => stack.destroy({ color: "never" }));
      },
      outputs,
      storedState: () => {
        const dir = path.join(engine.dir, "state", ".pulumi", "stacks");
        return fs
          .readdirSync(dir, { recursive: true, encoding: "utf8" })
          .filter((f) => f.endsWith(".json"))
          .map((f) => fs.readFileSync(path.join(dir, f), "utf8"))
          .join("\n");
      },
      client: async (names) => {
        const out = await outputs();
        const endpoints = estate.hosts(names).map((h) => `https://${h.address}:2379`);
        const client = new EtcdTestClient(endpoints, {
          ca: out.caCertPem,
          cert: out.clientCertPem,
          key: out.clientKeyPem,
        });
        clients.push(client);
        return client;
      },
      ssh: (name, command) => {
        const [h] = estate.hosts([name]);
        return run("ssh", [
          ...["-i", testBed.clientKeyPath, "-p", String(h.port)],
          ...["-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"],
          ...["-o", `UserKnownHostsFile=${testBed.knownHostsPath}`, "-o", "StrictHostKeyChecking=yes"],
          `root@${h.address}`,
          command,
        ]);
      },
      stop,
    };
    return estate;
  } catch (e) {
    await stop();
    throw e;
  }
}
