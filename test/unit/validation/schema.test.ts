/**
 * The schema checker the stack program runs on its settings (lib/validation/schema.ts): hand-made
 * schemas for each keyword, then agreement with ajv on the committed stack-file schema for random
 * mutations of the repository's stack files (a key misspelt, a value of another type, a key dropped).
 */
import * as fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import { parse as parseYaml } from "yaml";
import { JsonSchema, SchemaDefinitions, schemaErrors } from "../../../lib/validation/schema";

const fields = (value: unknown, schema: JsonSchema, definitions?: SchemaDefinitions) =>
  schemaErrors(value, schema, "s", definitions).map((e) => e.field);
const messages = (value: unknown, schema: JsonSchema, definitions?: SchemaDefinitions) =>
  schemaErrors(value, schema, "s", definitions).map((e) => e.message);

describe("each keyword", () => {
  const host: JsonSchema = {
    type: "object",
    required: ["name"],
    properties: {
      name: { type: "string" },
      port: { type: "number" },
      mode: { type: "string", enum: ["a", "b"] },
    },
    additionalProperties: false,
  };

  test("a fitting value has no errors", () => {
    expect(fields({ name: "h", port: 22, mode: "a" }, host)).toEqual([]);
  });

  test("types: the field and the expected type are named", () => {
    expect(messages({ name: 1 }, host)).toEqual(["invalid s.name: must be a string, got a number"]);
    expect(messages([], host)).toEqual(["invalid s: must be a map, got a list"]);
    expect(fields({ name: "h", port: "22" }, host)).toEqual(["s.port"]);
  });

  test("a missing required key and a misspelt one are both reported, the allowed keys listed", () => {
    const errors = schemaErrors({ nmae: "h" }, host, "s");
    expect(errors.map((e) => [e.field, e.allowed])).toEqual([
      ["s.name", undefined],
      ["s.nmae", "name, port, mode"],
    ]);
  });

  test("enum and const list the allowed values", () => {
    expect(schemaErrors({ name: "h", mode: "c" }, host, "s")[0].allowed).toBe('"a", "b"');
    expect(schemaErrors("y", { const: "x" }, "s")[0].allowed).toBe('"x"');
  });

  test("a map's other keys follow additionalProperties; a list's items follow items", () => {
    const labels: JsonSchema = { type: "object", additionalProperties: { type: "string" } };
    expect(fields({ a: "1", b: 2 }, labels)).toEqual(["s.b"]);
    expect(fields({ anything: [1] }, { type: "object", additionalProperties: {} })).toEqual([]);
    expect(fields([{ name: "a" }, { name: 2 }], { type: "array", items: host })).toEqual(["s[1].name"]);
  });

  test("$ref reads the definitions; an unknown one is a bug in the schema, not in the value", () => {
    const definitions = { host };
    expect(fields({ nmae: "h" }, { $ref: "#/definitions/host" }, definitions)).toEqual(["s.name", "s.nmae"]);
    expect(() => fields({}, { $ref: "#/definitions/nope" }, definitions)).toThrow(/schema bug/);
  });

  describe("unions", () => {
    const storage: JsonSchema = {
      anyOf: [
        {
          type: "object",
          properties: { kind: { type: "string", const: "pvc", default: "pvc" }, size: { type: "string" } },
          additionalProperties: false,
        },
        {
          type: "object",
          required: ["kind", "path"],
          properties: { kind: { type: "string", const: "hostPath" }, path: { type: "string" } },
          additionalProperties: false,
        },
      ],
    };

    test("a value fitting any form is accepted", () => {
      expect(fields({ kind: "hostPath", path: "/d" }, storage)).toEqual([]);
      expect(fields({ size: "1Gi" }, storage)).toEqual([]);
    });

    test("the form the discriminator names is the one reported", () => {
      expect(fields({ kind: "hostPath", paht: "/d" }, storage)).toEqual(["s.path", "s.paht"]);
    });

    test("an omitted discriminator means the form whose discriminator has a default", () => {
      expect(fields({ size: "1Gi", path: "/d" }, storage)).toEqual(["s.path"]);
      expect(schemaErrors({ size: "1Gi", path: "/d" }, storage, "s")[0].allowed).toBe("kind, size");
    });

    test("an unknown discriminator lists the forms", () => {
      expect(schemaErrors({ kind: "nfs" }, storage, "s").map((e) => [e.field, e.allowed])).toEqual([
        ["s.kind", '"pvc", "hostPath"'],
      ]);
    });

    test("a value of a type no form has names the types the forms take", () => {
      expect(messages(3, { anyOf: [{ type: "string" }, { type: "boolean" }] })).toEqual([
        "invalid s: must be a string or true or false, got a number",
      ]);
    });
  });
});

// --- agreement with ajv on the stack-file schema ----------------------------------------------------

const ROOT = join(__dirname, "../../..");
const stackFileSchema = JSON.parse(readFileSync(join(ROOT, "schemas/stack-config.schema.json"), "utf8"));
const keySchemas: Record<string, JsonSchema> = stackFileSchema.properties.config.properties;
const ajv = new Ajv({ allErrors: true, strict: false });
const ajvValidators = Object.fromEntries(
  Object.entries(keySchemas).map(([key, schema]) => [
    key,
    ajv.compile({ ...schema, definitions: stackFileSchema.definitions }),
  ]),
);

/** Every `karmada:*` setting of the repository's stack files. */
const SETTINGS: [string, unknown][] = [
  "Pulumi.dev.yaml",
  "Pulumi.prod.yaml",
  "Pulumi.sandbox.yaml",
  "Pulumi.local.yaml",
]
  .flatMap((file) => Object.entries(parseYaml(readFileSync(join(ROOT, file), "utf8")).config ?? {}))
  .filter(([key]) => key in keySchemas);

type Path = (string | number)[];

/** Every path into `value` (its containers' keys and indices), the root included. */
function paths(value: unknown, at: Path = []): Path[] {
  if (Array.isArray(value)) return [at, ...value.flatMap((v, i) => paths(v, [...at, i]))];
  if (typeof value === "object" && value !== null) {
    return [at, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, k]))];
  }
  return [at];
}

/** A mutation at a path: the value there replaced, or (in a map) its key misspelt or dropped. */
type Mutation = { kind: "replace"; with: unknown } | { kind: "rename" } | { kind: "drop" };

const MARKER = "value-never-shown-in-messages";
const replacements: unknown[] = [
  MARKER,
  7,
  true,
  null,
  [MARKER],
  { "misspelt-key": MARKER },
  "Push",
  "release",
];

function mutate(value: unknown, path: Path, mutation: Mutation): unknown {
  if (path.length === 0) return mutation.kind === "replace" ? mutation.with : value;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    return value.map((v, i) => (i === head ? mutate(v, rest, mutation) : v));
  }
  const record = value as Record<string, unknown>;
  if (rest.length === 0 && mutation.kind !== "replace") {
    const { [head as string]: moved, ...others } = record;
    return mutation.kind === "drop" ? others : { ...others, [`${head as string}x`]: moved };
  }
  return { ...record, [head]: mutate(record[head], rest, mutation) };
}

describe("agreement with ajv on the committed stack-file schema", () => {
  test("the repository's stack files fit", () => {
    for (const [key, value] of SETTINGS)
      expect([key, fields(value, keySchemas[key], stackFileSchema.definitions)]).toEqual([key, []]);
  });

  test("any mutation of a setting: both accept or both reject; fields named, values never shown", () => {
    const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
      fc.constantFrom<Mutation>({ kind: "rename" }, { kind: "drop" }),
      fc.constantFrom(...replacements).map((v): Mutation => ({ kind: "replace", with: v })),
    );
    const caseArb = fc
      .constantFrom(...SETTINGS)
      .chain(([key, value]) =>
        fc.tuple(fc.constant(key), fc.constant(value), fc.constantFrom(...paths(value)), mutationArb),
      );
    fc.assert(
      fc.property(caseArb, ([key, value, path, mutation]) => {
        const mutated = mutate(value, path, mutation);
        const ours = schemaErrors(mutated, keySchemas[key], key, stackFileSchema.definitions);
        const ajvValid = ajvValidators[key](mutated);
        expect({ key, path, mutation, ours: ours.length === 0 }).toEqual({
          key,
          path,
          mutation,
          ours: ajvValid,
        });
        for (const error of ours) {
          expect(error.field.startsWith(key)).toBe(true);
          expect(error.message).not.toContain(MARKER);
        }
      }),
      { numRuns: 500 },
    );
  });
});
