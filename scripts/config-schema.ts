/**
 * Writes schemas/stack-config.schema.json, the JSON Schema of Pulumi.<env>.yaml generated from the
 * `StackConfig` type (stacks/config.ts), which editors use to complete and check `karmada:*` keys.
 *
 *   npm run schema:config            regenerate the file
 *   npm run schema:config -- --check exit 1 when the committed file is not what the types generate (CI)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SCHEMA_PATH, STACK_CONFIG_TYPE, buildStackFileSchema } from "./config-schema/generate";
import { renderSchema } from "./config-schema/render";

async function main(args: string[]): Promise<number> {
  const unknown = args.filter((a) => a !== "--check");
  if (unknown.length > 0) {
    console.error(`unknown argument(s) ${unknown.join(" ")} (allowed: --check)`);
    return 2;
  }
  const root = resolve(__dirname, "..");
  const file = join(root, SCHEMA_PATH);
  const generated = await renderSchema(buildStackFileSchema(root), root);
  if (!args.includes("--check")) {
    writeFileSync(file, generated);
    console.log(`wrote ${SCHEMA_PATH} from ${STACK_CONFIG_TYPE.type} (${STACK_CONFIG_TYPE.path})`);
    return 0;
  }
  let committed: string | undefined;
  try {
    committed = readFileSync(file, "utf8");
  } catch {
    committed = undefined;
  }
  if (committed === generated) {
    console.log(`${SCHEMA_PATH} is current`);
    return 0;
  }
  console.error(
    `${SCHEMA_PATH} ${committed === undefined ? "is missing" : "is stale"}: it does not match the ` +
      `${STACK_CONFIG_TYPE.type} type in ${STACK_CONFIG_TYPE.path}. Run \`npm run schema:config\` and commit the result.`,
  );
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
