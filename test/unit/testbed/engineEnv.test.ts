/**
 * The engine's offline settings are defined once (scripts/testbed/engine.env): the test bed's shell
 * environment (scripts/testbed/env.sh, what `npm start` and the sandbox run in) and the tests' engine
 * runs (devkit/engine/env.ts) get the same values from it.
 */
import { execFileSync } from "child_process";
import * as path from "path";
import { OFFLINE_ENGINE_SETTINGS } from "../../../devkit/engine/env";
import { REPO_ROOT } from "../../../devkit/testbed";

/** What a bash that sources env.sh exports, from a clean environment. */
function shellEnvironment(): Record<string, string> {
  const out = execFileSync(
    "bash",
    ["-c", `. "${path.join(REPO_ROOT, "scripts/testbed/env.sh")}" && env -0`],
    {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
    },
  );
  return Object.fromEntries(
    out
      .split("\0")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

test("the offline settings: no update check, no plugin downloads, no type-check by the engine", () => {
  expect(OFFLINE_ENGINE_SETTINGS).toEqual({
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
  });
});

test("the test bed's shell exports exactly the values the tests' engine runs use", () => {
  const shell = shellEnvironment();
  for (const [key, value] of Object.entries(OFFLINE_ENGINE_SETTINGS))
    expect([key, shell[key]]).toEqual([key, value]);
});
