/**
 * What the console server is started with: where it listens, which program's stacks it serves, who may
 * call it and where it writes. Resolved from command-line flags and environment in one place, checked
 * before the server listens (a ConfigError naming the flag and the allowed values).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isIP } from "node:net";
import { ConfigError, ErrorCollector, show } from "../../lib/validation/errors";

/** Environment variable holding one bearer token (its name in the audit log: {@link ENV_TOKEN_NAME}). */
export const TOKEN_ENV = "PULUMI_KARMADA_CONSOLE_TOKEN";
/** The audit name of the token given by {@link TOKEN_ENV}. */
const ENV_TOKEN_NAME = "env";
/** Shortest token accepted: 128 bits of hex or base64 are longer. */
const MIN_TOKEN_LENGTH = 24;

/** The server's resolved settings. */
export interface ConsoleSettings {
  /** Address to listen on. @default "127.0.0.1" (loopback only) */
  readonly host: string;
  /** TCP port. @default 8750 */
  readonly port: number;
  /** Directory of the Pulumi program (its Pulumi.yaml) whose stacks are served. */
  readonly programDir: string;
  /** Bearer tokens by name (the name is what the audit log records). */
  readonly tokens: ReadonlyMap<string, string>;
  /** Where operations' results and the audit log are kept. @default `<programDir>/.console` */
  readonly dataDir: string;
  /** Environment of the engine (backend URL, passphrase, PULUMI_HOME …). @default the server's own */
  readonly engineEnv: Readonly<Record<string, string>>;
  /** The pulumi CLI the Automation API runs. @default the first `pulumi` on the engine's PATH */
  readonly pulumiBinary: string;
}

/** Defaults in one place. */
export const CONSOLE_DEFAULTS = { host: "127.0.0.1", port: 8750 } as const;

/** Flags `npm run console` takes. */
const CONSOLE_FLAGS = ["--program", "--host", "--port", "--tokens-file", "--data-dir", "--pulumi"] as const;

/** Reads `--flag value` pairs; an unknown flag or a missing value is an error naming it. */
function parseConsoleFlags(argv: readonly string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    if (!(CONSOLE_FLAGS as readonly string[]).includes(flag))
      throw new ConfigError(flag, "is not a flag of the console", CONSOLE_FLAGS.join(", "));
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--"))
      throw new ConfigError(flag, "needs a value", `${flag} <value>`);
    flags[flag.slice(2)] = value;
  }
  return flags;
}

/**
 * The tokens of a tokens file: one `<name> <token>` per line, `#` comments and blank lines skipped. The
 * file must not be readable by others (it holds credentials); messages never show a token.
 */
export function parseTokensFile(text: string, file: string): Map<string, string> {
  const tokens = new Map<string, string>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const field = `${file}:${i + 1}`;
    const parts = line.split(/\s+/);
    if (parts.length !== 2) throw new ConfigError(field, "is not `<name> <token>`", "<name> <token>");
    const [name, token] = parts;
    if (!/^[a-z0-9][a-z0-9._-]{0,62}$/i.test(name))
      throw new ConfigError(
        field,
        `token name ${show(name)} is not a plain name`,
        "[a-zA-Z0-9._-], at most 63",
      );
    if (tokens.has(name))
      throw new ConfigError(field, `token name ${show(name)} is given twice`, "unique names");
    checkToken(field, token);
    tokens.set(name, token);
  });
  return tokens;
}

function checkToken(field: string, token: string): void {
  if (token.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token))
    throw new ConfigError(
      field,
      "the token is too short or holds spaces or control characters",
      `at least ${MIN_TOKEN_LENGTH} printable characters, e.g. \`openssl rand -hex 32\``,
    );
}

/** Where the server looks, for tests: the file system and the environment. */
export interface SettingsSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (file: string) => string;
  /** File mode bits of `file`. */
  readonly modeOf: (file: string) => number;
  readonly exists: (file: string) => boolean;
  /** Whether `file` is an executable file. */
  readonly executable: (file: string) => boolean;
}

const realSources: SettingsSources = {
  env: process.env,
  readFile: (file) => fs.readFileSync(file, "utf8"),
  modeOf: (file) => fs.statSync(file).mode,
  exists: (file) => fs.existsSync(file),
  executable: (file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  },
};

/** The first `pulumi` on `PATH`. */
function pulumiOnPath(pathVariable: string | undefined, sources: SettingsSources): string | undefined {
  return (pathVariable ?? "")
    .split(path.delimiter)
    .filter((dir) => dir !== "")
    .map((dir) => path.join(dir, "pulumi"))
    .find((file) => sources.executable(file));
}

/** The settings from flags and environment: every problem together, before anything listens. */
export function resolveConsoleSettings(
  argv: readonly string[],
  sources: SettingsSources = realSources,
): ConsoleSettings {
  const flags = parseConsoleFlags(argv);
  const errors = new ErrorCollector();
  const host = flags.host ?? CONSOLE_DEFAULTS.host;
  if (isIP(host) === 0 && host !== "localhost")
    errors.add(
      new ConfigError(
        "--host",
        `${show(host)} is not an IP address`,
        "an IPv4 or IPv6 address, e.g. 127.0.0.1",
      ),
    );
  const port = flags.port === undefined ? CONSOLE_DEFAULTS.port : Number(flags.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errors.add(new ConfigError("--port", `${show(flags.port)} is not a port`, "an integer 1-65535"));
  const programDir = path.resolve(flags.program ?? ".");
  if (!sources.exists(path.join(programDir, "Pulumi.yaml")))
    errors.add(
      new ConfigError("--program", `${show(programDir)} holds no Pulumi.yaml`, "a Pulumi project directory"),
    );
  const tokens = new Map<string, string>();
  if (flags["tokens-file"] !== undefined) {
    const file = flags["tokens-file"];
    errors.attempt(() => {
      if (!sources.exists(file))
        throw new ConfigError(
          "--tokens-file",
          `${show(file)} does not exist`,
          "a file of `<name> <token>` lines",
        );
      if ((sources.modeOf(file) & 0o077) !== 0)
        throw new ConfigError(
          "--tokens-file",
          `${show(file)} is readable by group or others`,
          "mode 0600 (chmod 600)",
        );
      for (const [name, token] of parseTokensFile(sources.readFile(file), file)) tokens.set(name, token);
    });
  }
  const fromEnv = sources.env[TOKEN_ENV];
  if (fromEnv !== undefined) {
    errors.attempt(() => {
      checkToken(TOKEN_ENV, fromEnv);
      if (tokens.has(ENV_TOKEN_NAME))
        throw new ConfigError(
          TOKEN_ENV,
          `the tokens file names a token ${show(ENV_TOKEN_NAME)} too`,
          "another name in the file",
        );
      tokens.set(ENV_TOKEN_NAME, fromEnv);
    });
  }
  if (tokens.size === 0 && errors.errors.length === 0)
    errors.add(
      new ConfigError(
        "--tokens-file",
        "no token is configured: the console serves no anonymous request",
        `--tokens-file <file>, or ${TOKEN_ENV}`,
      ),
    );
  const pulumiBinary = flags.pulumi ?? pulumiOnPath(sources.env.PATH, sources);
  if (pulumiBinary === undefined)
    errors.add(new ConfigError("--pulumi", "no pulumi CLI on PATH", "--pulumi <path of the pulumi binary>"));
  else if (!sources.executable(pulumiBinary))
    errors.add(
      new ConfigError("--pulumi", `${show(pulumiBinary)} is not an executable file`, "the pulumi binary"),
    );
  errors.throwIfAny("console");
  const engineEnv = Object.fromEntries(
    Object.entries(sources.env).filter(
      (e): e is [string, string] => e[1] !== undefined && e[0] !== TOKEN_ENV,
    ),
  );
  return {
    host,
    port,
    programDir,
    tokens,
    dataDir: path.resolve(flags["data-dir"] ?? path.join(programDir, ".console")),
    engineEnv,
    pulumiBinary: path.resolve(pulumiBinary!),
  };
}
