import { engineErrorLines, engineErrorsFirst } from "../../../devkit/engine/failedRun";

/** The tail of a real failed `pulumi up` (a host dropped its SSH session; a host unreachable). */
const FAILED_UP = [
  "Updating (local):",
  " +  command:remote:Command karmada-cp2-preflight creating (41s) error: after 10 failed attempts: dial tcp 10.233.0.105:22: connect: no route to host",
  "    pulumi:pulumi:Stack karmada-estate-local  error: update failed",
  "    pulumi:pulumi:Stack karmada-estate-local **failed** 1 error",
  "Diagnostics:",
  "  command:remote:Command (karmada-cp3-pki-karmada-aggregated-apiserver):",
  `    error: EOF: running "bash -c '#!/usr/bin/env bash\\n${"x".repeat(2000)}' pulumi-karmada":`,
  "    pulumi-karmada: cp3: remove-karmada-aggregated-apiserver-files (at 0s)",
  "",
  "  command:remote:Command (karmada-cp2-preflight):",
  "    error: after 10 failed attempts: dial tcp 10.233.0.105:22: connect: no route to host",
  "",
  "  pulumi:pulumi:Stack (karmada-estate-local):",
  "    error: update failed",
  "",
  "Resources:",
  "    - 114 deleted",
  "    2 errored",
].join("\n");

describe("engineErrorLines", () => {
  test("names each failed resource with its error from the Diagnostics section, clipped, without the stack's own", () => {
    const lines = engineErrorLines(FAILED_UP);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^karmada-cp3-pki-karmada-aggregated-apiserver: EOF: running "bash -c/);
    expect(lines[0].length).toBeLessThanOrEqual(602);
    expect(lines[0].endsWith(" …")).toBe(true);
    expect(lines[1]).toBe(
      "karmada-cp2-preflight: after 10 failed attempts: dial tcp 10.233.0.105:22: connect: no route to host",
    );
  });

  test("joins an error's continuation lines", () => {
    const output = [
      "Diagnostics:",
      "  kubernetes:core/v1:Secret (shared-a-member-token-karmada-impersonator):",
      "    error: 1 error occurred:",
      "    \t* resource was not ready",
      "",
    ].join("\n");
    expect(engineErrorLines(output)).toEqual([
      "shared-a-member-token-karmada-impersonator: 1 error occurred: * resource was not ready",
    ]);
  });

  test("without a Diagnostics section, every progress line saying error:, each once", () => {
    const output = ["a creating", "b creating error: boom", "b creating error: boom", "c done"].join("\n");
    expect(engineErrorLines(output)).toEqual(["b creating error: boom"]);
  });
});

describe("engineErrorsFirst", () => {
  test("a failure's message starts with the errors and keeps the output and the original error", async () => {
    const original = new Error(FAILED_UP);
    const failure = await engineErrorsFirst(() => Promise.reject(original)).catch((e: Error) => e);
    expect(failure.message.split("\n").slice(0, 3)).toEqual([
      "the engine reported:",
      expect.stringMatching(/^karmada-cp3-pki-karmada-aggregated-apiserver: /),
      expect.stringMatching(/^karmada-cp2-preflight: after 10 failed attempts/),
    ]);
    expect(failure.message).toContain(FAILED_UP);
    expect(failure.cause).toBe(original);
  });

  test("a success passes through; a failure naming no error is rethrown as it was", async () => {
    await expect(engineErrorsFirst(async () => 42)).resolves.toBe(42);
    const plain = new Error("ENOENT: pulumi not found");
    await expect(engineErrorsFirst(() => Promise.reject(plain))).rejects.toBe(plain);
  });
});
