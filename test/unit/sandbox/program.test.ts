/**
 * The stacks program as `npm start`, the diagrams and the local estate's e2e run it: transpiled to
 * JavaScript file by file into a project copy (devkit/sandbox/program.ts). What it imports besides
 * TypeScript — the stack-file schema it checks its settings against — must travel with it.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { programSources, transpileStacksProgram } from "../../../devkit/sandbox/program";

describe("the transpiled stacks program", () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "pk-program-"));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  test("carries the stack-file schema, and its settings check runs from the copy", () => {
    expect(programSources()).toContain(path.join("schemas", "stack-config.schema.json"));
    transpileStacksProgram(out);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const copy = require(path.join(out, "stacks", "configSchema.js"));
    const errors: Error[] = copy.stackSchemaErrors({ crds: { kind: "git" } });
    expect(errors.map((e) => e.message)).toEqual([
      'invalid karmada:crds.kind: is not one of the allowed values (allowed: "release", "url", "path")',
    ]);
  });
});
