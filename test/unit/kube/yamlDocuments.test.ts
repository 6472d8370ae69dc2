import fc from "fast-check";
import { parse, parseAllDocuments, stringify } from "yaml";
import { parseYamlDocuments, YamlSyntaxProblem } from "../../../lib/kube/yamlDocuments";

const invalid = (problem: YamlSyntaxProblem) =>
  new Error(`document ${problem.document}, line ${problem.line}: ${problem.reason}`);
/** What the `yaml` package makes of a text: the values the library used before. */
const yamlPackage = (text: string) =>
  parseAllDocuments(text)
    .map((doc) => doc.toJS())
    .filter((doc) => doc !== null && doc !== undefined);

describe("parseYamlDocuments", () => {
  it("gives the same values as the yaml package for any JSON-like documents", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 4 }), { minLength: 1, maxLength: 4 }), (values) => {
        const text = values.map((value) => stringify(value)).join("---\n");
        // compared as the provider receives them (JSON numbers): js-yaml reads `-0` as 0, yaml as -0
        const asSent = (docs: unknown[]) => JSON.parse(JSON.stringify(docs));
        expect(asSent(parseYamlDocuments(text, invalid))).toEqual(asSent(yamlPackage(text)));
      }),
    );
  });

  it("reads -0 as 0 (the same number once sent as JSON)", () => {
    expect(parseYamlDocuments("- -0\n- []\n", invalid)).toEqual([[0, []]]);
  });

  it("keeps the YAML 1.2 core schema: timestamps stay strings, `<<` is an ordinary key, octal needs 0o", () => {
    const text = "a: 2026-11-26T10:00:00Z\nb: 0755\nc: 0o17\nd: yes\nbase: &b {x: 1}\nmerged: {<<: *b}\n";
    const [doc] = parseYamlDocuments(text, invalid);
    expect(doc).toEqual(parse(text));
    expect(doc).toMatchObject({ a: "2026-11-26T10:00:00Z", b: 755, c: 15, d: "yes" });
  });

  it("drops empty documents and keeps the order of the rest", () => {
    const text = "---\n# only a comment\n---\nkind: A\n---\n---\nkind: B\n";
    expect(parseYamlDocuments(text, invalid)).toEqual([{ kind: "A" }, { kind: "B" }]);
  });

  it("throws the caller's error with the document and 1-based line of a syntax error", () => {
    expect(() => parseYamlDocuments("kind: A\nspec:\n  a: 1\n   b: 2\n", invalid)).toThrow(
      /^document 0, line 4: /,
    );
    expect(() => parseYamlDocuments("a: 1\na: 2\n", invalid)).toThrow(/duplicated mapping key/);
    // empty documents count: the broken one is the third
    const third = "# header\n---\nkind: A\n---\n---\nkind: [\n";
    expect(() => parseYamlDocuments(third, invalid)).toThrow(/^document 2, /);
    expect(() => parseYamlDocuments("kind: A\n---\nkind: [\n", invalid)).toThrow(/^document 1, /);
  });
});
