/**
 * The text of provider/schema.json: the canonical form (json.ts) formatted with the repository's prettier
 * config — so that generating twice changes no byte and the file passes `prettier --check`.
 */
import * as path from "path";
import * as prettier from "prettier";
import { SCHEMA_FILE, sortedDeep } from "./json";

/** The file text for `schema` under `root`. */
export async function renderSchema(schema: unknown, root: string): Promise<string> {
  const file = path.join(root, SCHEMA_FILE);
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(JSON.stringify(sortedDeep(schema)), { ...options, filepath: file });
}
