/** Two projects: `unit` (pure functions, Pulumi mocks, real openssl) and `e2e` (real engine and test bed). */
const common = {
  preset: "ts-jest",
  testEnvironment: "node",
  // examples import the package by name, as an outside project does
  moduleNameMapper: { "^pulumi-karmada$": "<rootDir>/index.ts" },
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
};
module.exports = {
  testTimeout: 120000,
  projects: [
    {
      ...common,
      displayName: "unit",
      testMatch: ["<rootDir>/test/unit/**/*.test.ts", "<rootDir>/lib/**/*.test.ts"],
    },
    { ...common, displayName: "e2e", testMatch: ["<rootDir>/test/e2e/**/*.test.ts"] },
  ],
};
