import { parseSummaryArgs } from "../../../lib/preview/args";
import { ConfigError } from "../../../lib/validation/errors";

describe("parseSummaryArgs", () => {
  test("--stack runs a preview and writes JSON and Markdown under out/ by default", () => {
    expect(parseSummaryArgs(["--stack", "dev"])).toEqual({
      stack: "dev",
      cwd: ".",
      jsonOut: "out/preview-dev.json",
      markdownOut: "out/preview-dev.md",
    });
  });

  test("--from reads a saved preview; no JSON is written", () => {
    const args = parseSummaryArgs(["--from=saved.json", "--markdown-out", "pr.md", "--title", "PR 7"]);
    expect(args).toEqual({
      from: "saved.json",
      cwd: ".",
      jsonOut: undefined,
      markdownOut: "pr.md",
      title: "PR 7",
    });
  });

  test("every option accepts --name value and --name=value", () => {
    const args = parseSummaryArgs([
      "--stack=prod",
      "--cwd",
      "/repo",
      "--config-file=c.yaml",
      "--json-out",
      "p.json",
    ]);
    expect(args).toMatchObject({ stack: "prod", cwd: "/repo", configFile: "c.yaml", jsonOut: "p.json" });
  });

  const bad: [string, string[], string][] = [
    [
      "neither source",
      [],
      "invalid --stack: give exactly one of --stack (run a preview) and --from (read a saved one)",
    ],
    ["both sources", ["--stack", "a", "--from", "b"], "invalid --stack: give exactly one of"],
    [
      "an unknown option",
      ["--stack", "a", "--diff"],
      'invalid arguments: unknown option "--diff" (allowed: --stack, --from, --cwd,',
    ],
    ["a positional word", ["dev"], 'invalid arguments: unknown option "dev"'],
    ["a missing value", ["--stack"], "invalid --stack: needs a value"],
    ["a flag where the value should be", ["--stack", "--cwd", "x"], "invalid --stack: needs a value"],
    ["an empty value", ["--stack="], "invalid --stack: needs a value"],
    ["a repeated option", ["--stack", "a", "--stack", "b"], "invalid --stack: is given twice"],
    [
      "--config-file without a preview",
      ["--from", "x.json", "--config-file", "c"],
      "invalid --config-file: only applies when running a preview",
    ],
  ];
  test.each(bad)("%s is refused, naming the option", (_what, argv, message) => {
    expect(() => parseSummaryArgs(argv)).toThrow(ConfigError);
    expect(() => parseSummaryArgs(argv)).toThrow(message);
  });
});
