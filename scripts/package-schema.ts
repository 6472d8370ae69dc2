/**
 * Writes provider/schema.json, the Pulumi package schema the component provider serves, generated from
 * the components' TypeScript types (provider/schema/).
 *
 *   npm run schema:package                          regenerate the file
 *   npm run schema:package -- --check               exit 1, naming the differences, when the committed file
 *                                                   is not what the types generate (CI)
 *   npm run schema:package -- --verbose             also list the fields left out, and why
 *   npm run schema:package -- --allow-undocumented  do not fail on input fields without a doc comment
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { UndocumentedFieldsError, generatePackageSchema } from "../provider/schema/generate";
import { SCHEMA_FILE, jsonDifferences } from "../provider/schema/json";
import { renderSchema } from "../provider/schema/render";

const FLAGS = ["--check", "--verbose", "--allow-undocumented"];

function readCommitted(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

async function main(args: string[]): Promise<number> {
  const unknown = args.filter((a) => !FLAGS.includes(a));
  if (unknown.length > 0) {
    console.error(`unknown argument(s) ${unknown.join(" ")} (allowed: ${FLAGS.join(", ")})`);
    return 2;
  }
  const root = resolve(__dirname, "..");
  const { schema, skipped, undocumented } = generatePackageSchema(root, {
    requireDocs: !args.includes("--allow-undocumented"),
  });
  if (args.includes("--verbose")) {
    console.log(`fields left out of the schema (${skipped.length}):`);
    for (const s of skipped) console.log(`  ${s.field}: ${s.reason}`);
    if (undocumented.length > 0) {
      console.log(`input fields without a doc comment (${undocumented.length}):`);
      for (const u of undocumented) console.log(`  ${u.field}${u.location ? ` (${u.location})` : ""}`);
    }
  }
  const file = join(root, SCHEMA_FILE);
  const generated = await renderSchema(schema, root);
  if (!args.includes("--check")) {
    writeFileSync(file, generated);
    console.log(
      `wrote ${SCHEMA_FILE}: ${Object.keys(schema.resources).length} components, ${Object.keys(schema.types).length} types`,
    );
    return 0;
  }
  const committed = readCommitted(file);
  if (committed === generated) {
    console.log(`${SCHEMA_FILE} is current`);
    return 0;
  }
  const differences =
    committed === undefined ? [] : jsonDifferences(JSON.parse(committed), JSON.parse(generated));
  console.error(
    `${SCHEMA_FILE} ${committed === undefined ? "is missing" : "is stale"}: it is not what the component types ` +
      `generate. Run \`npm run schema:package\` and commit the result.` +
      (differences.length > 0 ? `\n${differences.map((d) => `  ${d}`).join("\n")}` : ""),
  );
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(
      error instanceof UndocumentedFieldsError || !(error instanceof Error)
        ? String(error.message ?? error)
        : error.stack,
    );
    process.exit(1);
  },
);
