// Lint with typescript-eslint's recommended rules plus Pulumi's rules (no floating Outputs/promises misuse).
import tseslint from "typescript-eslint";
import pulumi from "@pulumi/eslint-plugin";

export default tseslint.config(
  { ignores: ["node_modules/**", "bin/**", "**/*.js", "**/*.mjs"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    plugins: { "@pulumi": pulumi },
    languageOptions: {
      parserOptions: {
        project: ["./tsconfig.json", "./console/web/tsconfig.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@pulumi/no-output-in-template-literal": "error",
      "@pulumi/no-output-instance-in-template-literal": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
);
