/**
 * The component provider: serves the package schema generated from the Args types (provider/schema.json,
 * `npm run schema:package`) and constructs the components for programs in other languages.
 */
import * as fs from "fs";
import * as path from "path";
import { Provider } from "@pulumi/pulumi/provider";
import { ServedSchema, constructComponent } from "./construct";

/**
 * provider/schema.json: in a checkout, the committed file (two levels up from the compiled bin/provider);
 * in a packed copy, the one the build put beside this file.
 */
export function schemaPath(): string {
  const candidates = [
    path.join(__dirname, "..", "..", "provider", "schema.json"),
    path.join(__dirname, "schema.json"),
  ];
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found)
    throw new Error(`package schema not found (looked in ${candidates.join(", ")}): run npm run build`);
  return found;
}

/** The provider for a schema text. */
export function karmadaProvider(schemaText: string): Provider & { readonly version: string } {
  const schema = JSON.parse(schemaText) as ServedSchema & { version: string };
  return {
    version: schema.version,
    schema: schemaText,
    construct: (name, type, inputs, options) => constructComponent(schema, name, type, inputs, options),
  };
}
