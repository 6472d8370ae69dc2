/**
 * Generates the JSON Schema of a stack file from the `StackConfig` type (stacks/config.ts) with
 * ts-json-schema-generator, then shapes it for editors: Pulumi types as the plain values a YAML file
 * holds, defaults documented, secret fields also in their encrypted form, the `karmada:` namespace
 * around each key, one key order — the same schema every time.
 */
import { join } from "node:path";
import {
  CompletedConfig,
  DEFAULT_CONFIG,
  NodeParser,
  SchemaGenerator,
  createFormatter,
  createParser,
  createProgram,
} from "ts-json-schema-generator";
import { documentDefaults } from "./defaults";
import { canonicalOrder } from "./order";
import { PulumiTypeParser, assertNoResources } from "./pulumi-types";
import { relaxFilledFields } from "./filled-fields";
import { acceptSecureValues } from "./secrets";
import { stackFileSchema } from "./stack-file";
import { SchemaNode } from "./walk";

/** Where the schema is committed, relative to the repository root (Pulumi.<env>.yaml refer to it). */
export const SCHEMA_PATH = "schemas/stack-config.schema.json";
/** The type the schema describes, and its file. */
export const STACK_CONFIG_TYPE = { path: "stacks/config.ts", type: "StackConfig" } as const;

/** The schema of `StackConfig` alone, as ts-json-schema-generator makes it. */
export function stackConfigTypeSchema(repoRoot: string): SchemaNode {
  const config: CompletedConfig = {
    ...DEFAULT_CONFIG,
    path: join(repoRoot, STACK_CONFIG_TYPE.path),
    tsconfig: join(repoRoot, "tsconfig.json"),
    type: STACK_CONFIG_TYPE.type,
    // every type inline: no definition names (`Partial<Record<…>>`) leak into completion and hover
    expose: "none",
    topRef: false,
    // a function (e.g. the injectable clock of rotation settings) cannot be written in YAML
    functions: "hide",
    // `tsc` checks the types; the generator need not do it again
    skipTypeCheck: true,
  };
  const program = createProgram(config);
  // the augmentor gets the generator's chain of parsers, which parses the types our parser unwraps
  const parser = createParser(program, config, (chain) =>
    chain.addNodeParser(new PulumiTypeParser(program.getTypeChecker(), chain as unknown as NodeParser)),
  );
  return new SchemaGenerator(program, parser, createFormatter(config), config).createSchema(
    config.type,
  ) as SchemaNode;
}

/** The finished stack-file schema built from the generator's schema of `StackConfig` (pure). */
export function shapeStackFileSchema(typeSchema: SchemaNode): SchemaNode {
  assertNoResources(typeSchema);
  // the draft is named once, at the top of the stack-file schema
  const config = Object.fromEntries(Object.entries(typeSchema).filter(([keyword]) => keyword !== "$schema"));
  const shaped = acceptSecureValues(relaxFilledFields(documentDefaults(config)));
  return canonicalOrder(stackFileSchema(shaped));
}

/** The stack-file schema for the current `StackConfig` type. */
export function buildStackFileSchema(repoRoot: string): SchemaNode {
  return shapeStackFileSchema(stackConfigTypeSchema(repoRoot));
}
