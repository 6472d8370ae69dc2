/**
 * Two projects: `unit` (pure functions, Pulumi mocks, real openssl and bash, upstream reference files from
 * the Go module cache) and `e2e` (real engine and test bed).
 */
const common = {
  preset: "ts-jest",
  testEnvironment: "node",
  // examples import the package by name, as an outside project does
  moduleNameMapper: { "^pulumi-karmada$": "<rootDir>/index.ts" },
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
  setupFilesAfterEnv: ["<rootDir>/test/support/drainImmediates.ts"],
};
module.exports = {
  testTimeout: 120000,
  // two workers on two cores: most e2e suites wait on processes, the engine and pods, not on the CPU;
  // suites that run side by side use their own addresses (and the lab's estates their own namespaces)
  maxWorkers: 2,
  testSequencer: "<rootDir>/test/support/sequencer.js",
  projects: [
    {
      ...common,
      displayName: "unit",
      testMatch: ["<rootDir>/test/unit/**/*.test.ts", "<rootDir>/lib/**/*.test.ts"],
      // fetches the upstream Go modules (Kubernetes OpenAPI schema, Karmada) once, before any unit test
      globalSetup: "<rootDir>/test/support/unitGlobalSetup.ts",
    },
    {
      ...common,
      displayName: "e2e",
      testMatch: ["<rootDir>/test/e2e/**/*.test.ts"],
      // the lab of real nodes some suites share (devkit/lab/useLab.ts): fresh for each run, gone after it
      globalSetup: "<rootDir>/test/support/labTeardown.ts",
      globalTeardown: "<rootDir>/test/support/labTeardown.ts",
    },
  ],
};
