import * as fs from "fs";
import * as path from "path";
import { parsePreviewDigest } from "../../../lib/preview/digest";
import { ConfigError } from "../../../lib/validation/errors";

const FIXTURE = path.join(__dirname, "fixtures", "rotation-and-image.json");
const URN = "urn:pulumi:ci::p::t:m:T::n";

describe("parsePreviewDigest", () => {
  test("reads a recorded-shape preview: every step with its op, URN and reasons", () => {
    const text = fs.readFileSync(FIXTURE, "utf8");
    const digest = parsePreviewDigest(text);
    expect(digest.steps).toHaveLength(JSON.parse(text).steps.length);
    expect(digest.steps?.every((s) => typeof s.op === "string" && s.urn.startsWith("urn:pulumi:ci::"))).toBe(
      true,
    );
    expect(digest.changeSummary?.same).toBe(6);
  });

  test("an empty preview (no steps, no summary) is valid", () => {
    expect(parsePreviewDigest("{}")).toEqual({});
  });

  const cases: [string, string, string][] = [
    ["not json", "not JSON", "invalid preview: is not JSON"],
    ["array", "[]", 'invalid preview: is "an array", not an object'],
    ["null", "null", "invalid preview: is null, not an object"],
    ["steps not a list", '{"steps":{}}', "invalid preview.steps: is not an array"],
    ["step not an object", '{"steps":[1]}', "invalid preview.steps[0]: is not an object"],
    [
      "step without op",
      `{"steps":[{"urn":"${URN}"}]}`,
      "invalid preview.steps[0].op: undefined is not an operation",
    ],
    [
      "step with a bad URN",
      `{"steps":[{"op":"same","urn":"${URN}"},{"op":"create","urn":"x"}]}`,
      'invalid preview.steps[1].urn: "x" is not a Pulumi URN',
    ],
    [
      "reasons not strings",
      `{"steps":[{"op":"replace","urn":"${URN}","replaceReasons":[1]}]}`,
      "invalid preview.steps[0].replaceReasons: is not a list of property names",
    ],
    [
      "summary with a negative count",
      '{"changeSummary":{"same":-1}}',
      "invalid preview.changeSummary: is not a map of operation → count",
    ],
    ["diagnostics not a list", '{"diagnostics":"boom"}', "invalid preview.diagnostics: is not an array"],
  ];
  test.each(cases)("%s is refused with the field named", (_what, text, message) => {
    expect(() => parsePreviewDigest(text)).toThrow(ConfigError);
    expect(() => parsePreviewDigest(text)).toThrow(message);
  });

  test("a truncated file (a cut-off preview) is refused as not JSON", () => {
    const text = fs.readFileSync(FIXTURE, "utf8");
    expect(() => parsePreviewDigest(text.slice(0, text.length / 2), "out/preview-ci.json")).toThrow(
      /^invalid out\/preview-ci\.json: is not JSON/,
    );
  });
});
