/**
 * Config-driven stack program: one stack per environment (Pulumi.<env>.yaml holds the `karmada:*`
 * settings). Run with `pulumi up -s <env>` from the repository root. The program itself is
 * `estateStack` (stacks/program.ts), published as `pulumi-karmada/stack`.
 */
import { estateStack } from "./program";

export = estateStack();
