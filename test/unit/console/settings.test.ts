import { configErrorsOf } from "../../../lib/validation/errors";
import {
  CONSOLE_DEFAULTS,
  parseTokensFile,
  resolveConsoleSettings,
  SettingsSources,
  TOKEN_ENV,
} from "../../../console/server/settings";

const TOKEN = "a".repeat(20) + "0123456789";

/** A file system of `files` (path → [text, mode]) and an environment. */
function sources(files: Record<string, [string, number]>, env: Record<string, string> = {}): SettingsSources {
  return {
    env: { PATH: "/opt/pulumi/bin", ...env },
    readFile: (file) => files[file][0],
    modeOf: (file) => files[file][1],
    exists: (file) => file in files,
    executable: (file) => file === "/opt/pulumi/bin/pulumi" || file in files,
  };
}

const program = { "/srv/estate/Pulumi.yaml": ["name: estate", 0o644] as [string, number] };

function fields(run: () => unknown): string[] {
  try {
    run();
  } catch (e) {
    return configErrorsOf(e).map((error) => error.field);
  }
  throw new Error("expected a ConfigError");
}

describe("console settings", () => {
  it("listens on loopback by default and takes the token from the environment", () => {
    const settings = resolveConsoleSettings(
      ["--program", "/srv/estate"],
      sources(program, { [TOKEN_ENV]: TOKEN }),
    );
    expect(settings).toMatchObject({
      host: CONSOLE_DEFAULTS.host,
      port: CONSOLE_DEFAULTS.port,
      programDir: "/srv/estate",
      dataDir: "/srv/estate/.console",
      pulumiBinary: "/opt/pulumi/bin/pulumi",
    });
    expect([...settings.tokens]).toEqual([["env", TOKEN]]);
    // the token is not handed on to the engine
    expect(settings.engineEnv).not.toHaveProperty(TOKEN_ENV);
  });

  it("serves nobody without a token", () => {
    expect(fields(() => resolveConsoleSettings(["--program", "/srv/estate"], sources(program)))).toEqual([
      "--tokens-file",
    ]);
  });

  it("reads named tokens from a file only it can read", () => {
    const file = "/etc/console/tokens";
    const text = `# platform tokens\nplatform ${TOKEN}\n\nops ${TOKEN.replace("a", "b")}\n`;
    const settings = resolveConsoleSettings(
      ["--program", "/srv/estate", "--tokens-file", file],
      sources({ ...program, [file]: [text, 0o100600] }),
    );
    expect([...settings.tokens.keys()]).toEqual(["platform", "ops"]);
    expect(
      fields(() =>
        resolveConsoleSettings(
          ["--program", "/srv/estate", "--tokens-file", file],
          sources({ ...program, [file]: [text, 0o100644] }),
        ),
      ),
    ).toEqual(["--tokens-file"]);
  });

  it("names every bad flag at once, never showing a token", () => {
    let message = "";
    try {
      resolveConsoleSettings(
        ["--program", "/nowhere", "--host", "example.org", "--port", "70000"],
        sources(program, { [TOKEN_ENV]: "short-secret" }),
      );
    } catch (e) {
      message = (e as Error).message;
      expect(configErrorsOf(e).map((error) => error.field)).toEqual([
        "--host",
        "--port",
        "--program",
        TOKEN_ENV,
      ]);
    }
    expect(message).not.toContain("short-secret");
    expect(fields(() => resolveConsoleSettings(["--verbose"], sources(program)))).toEqual(["--verbose"]);
    expect(fields(() => resolveConsoleSettings(["--port"], sources(program)))).toEqual(["--port"]);
  });

  it("refuses malformed token lines, naming the line and not the token", () => {
    expect(() => parseTokensFile(`one ${TOKEN} extra`, "tokens")).toThrow(/tokens:1.*<name> <token>/);
    expect(() => parseTokensFile(`a ${TOKEN}\na ${TOKEN}x`, "tokens")).toThrow(/tokens:2.*given twice/);
    let message = "";
    try {
      parseTokensFile("ops tooshort", "tokens");
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/tokens:1/);
    expect(message).not.toContain("tooshort");
  });
});
