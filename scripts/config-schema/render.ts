/**
 * The schema file's text: formatted as the repository's prettier config formats JSON, so the
 * generated file passes `prettier --check` and regenerating it changes no byte.
 */
import { join } from "node:path";
import * as prettier from "prettier";
import { SCHEMA_PATH } from "./generate";
import { SchemaNode } from "./walk";

/** `schema` as the text of {@link SCHEMA_PATH} under `repoRoot`. */
export async function renderSchema(schema: SchemaNode, repoRoot: string): Promise<string> {
  const file = join(repoRoot, SCHEMA_PATH);
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(JSON.stringify(schema), { ...options, filepath: file });
}
