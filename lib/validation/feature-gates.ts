import { ConfigError, show } from "./errors";
import { entryField } from "./labels";

/** Feature gate names are upper camel case (`PropagateDeps`, `Failover`). */
const FEATURE_GATE_NAME = /^[A-Z][A-Za-z0-9]*$/;

const NAME_FORM = "UpperCamelCase: a capital letter, then letters and digits";
const STRING_FORM = "comma-separated Name=true|false, e.g. Failover=true,PropagateDeps=false";

/** Validates a map of feature gates (name → boolean); returns it. */
export function validateFeatureGates(
  field: string,
  gates: Readonly<Record<string, boolean>>,
): Readonly<Record<string, boolean>> {
  if (typeof gates === "string") {
    // Object.entries of a string would walk its characters and blame the first one
    const hint = (() => {
      try {
        return ` such as ${JSON.stringify(parseFeatureGates(field, gates))}`;
      } catch {
        return "";
      }
    })();
    throw new ConfigError(
      field,
      `${show(gates)} is a string; give a map of gate name to boolean${hint}`,
      "{ Name: true|false }",
    );
  }
  if (typeof gates !== "object" || gates === null || Array.isArray(gates)) {
    throw new ConfigError(
      field,
      `${show(gates)} is not a map of gate name to boolean`,
      "{ Name: true|false }",
    );
  }
  for (const [name, enabled] of Object.entries(gates)) {
    if (!FEATURE_GATE_NAME.test(name)) {
      throw new ConfigError(entryField(field, name), `${show(name)} is not a feature gate name`, NAME_FORM);
    }
    if (typeof enabled !== "boolean") {
      throw new ConfigError(entryField(field, name), `${show(enabled)} is not a boolean`, "true, false");
    }
  }
  return gates;
}

/**
 * Parses the `--feature-gates` string form (`Name=true,Other=false`; blanks around entries ignored, an
 * empty string is no gates). Repeating a name is an error rather than "last one wins".
 */
export function parseFeatureGates(field: string, text: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  if (typeof text !== "string") throw new ConfigError(field, `${show(text)} is not a string`, STRING_FORM);
  if (text.trim() === "") return gates;
  for (const entry of text.split(",").map((e) => e.trim())) {
    const match = /^([^=]*)=(.*)$/.exec(entry);
    if (!match) throw new ConfigError(field, `entry ${show(entry)} is not Name=true|false`, STRING_FORM);
    const [, name, value] = match;
    if (!FEATURE_GATE_NAME.test(name)) {
      throw new ConfigError(field, `${show(name)} is not a feature gate name`, NAME_FORM);
    }
    if (value !== "true" && value !== "false") {
      throw new ConfigError(field, `value ${show(value)} of ${name} is not a boolean`, "true, false");
    }
    if (name in gates) throw new ConfigError(field, `duplicate feature gate ${show(name)}`, "each gate once");
    gates[name] = value === "true";
  }
  return gates;
}

/** The `--feature-gates` flag value for a map, sorted by name so the rendered flag is stable. */
export function formatFeatureGates(gates: Readonly<Record<string, boolean>>): string {
  return Object.keys(gates)
    .sort()
    .map((name) => `${name}=${gates[name]}`)
    .join(",");
}
