import * as fc from "fast-check";
import {
  ANNOTATIONS_MAX_BYTES,
  isLabelValue,
  isQualifiedName,
  validateAnnotations,
  validateLabelKey,
  validateLabels,
  validateLabelValue,
} from "../../../lib/validation/labels";
import { configError } from "./config-error";

const namePart = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
const prefix = fc
  .array(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/), { minLength: 1, maxLength: 3 })
  .map((l) => l.join("."));

describe("label and annotation keys", () => {
  it("accept name and prefix/name", () => {
    fc.assert(
      fc.property(fc.option(prefix), namePart, (p, n) => {
        const key = p === null ? n : `${p}/${n}`;
        expect(validateLabelKey("labels", key)).toBe(key);
      }),
    );
  });

  it("reject bad forms", () => {
    for (const bad of ["", "/a", "a/", "a/b/c", "-a", "a-", "UPPER.Prefix/a", `${"a".repeat(64)}`, "a b"]) {
      expect(isQualifiedName(bad)).toBe(false);
    }
    const error = configError(() => validateLabelKey('labels["a b"]', "a b"));
    expect(error.problem).toBe('"a b" is not a valid key');
    expect(error.allowed).toContain("[prefix/]name");
  });
});

describe("label values", () => {
  it("accept the empty string and name-shaped values up to 63 characters", () => {
    fc.assert(fc.property(namePart, (v) => expect(isLabelValue(v)).toBe(true)));
    expect(isLabelValue("")).toBe(true);
    expect(isLabelValue("a".repeat(64))).toBe(false);
    expect(isLabelValue("a/b")).toBe(false);
    expect(configError(() => validateLabelValue("f", "-x")).allowed).toContain("empty, or at most 63");
  });

  it("validateLabels names the offending entry", () => {
    expect(validateLabels("labels", { "app.kubernetes.io/name": "karmada" })).toEqual({
      "app.kubernetes.io/name": "karmada",
    });
    const error = configError(() => validateLabels("components.karmada-webhook.labels", { team: "a b" }));
    expect(error.field).toBe('components.karmada-webhook.labels["team"]');
    expect(error.problem).toBe('"a b" is not a valid label value');
  });
});

describe("annotations", () => {
  it("accept any string value within the total size limit", () => {
    expect(validateAnnotations("a", { "example.com/note": "any text: / spaces ✓" })).toBeDefined();
    const justFits = { k: "x".repeat(ANNOTATIONS_MAX_BYTES - 1) };
    expect(validateAnnotations("a", justFits)).toBe(justFits);
  });

  it("reject an oversized total, bad keys and non-string values", () => {
    expect(
      configError(() => validateAnnotations("a", { k: "x".repeat(ANNOTATIONS_MAX_BYTES) })).message,
    ).toBe(
      `invalid a: annotations total ${ANNOTATIONS_MAX_BYTES + 1} bytes (allowed: at most ${ANNOTATIONS_MAX_BYTES} bytes)`,
    );
    expect(configError(() => validateAnnotations("a", { "bad key": "" })).field).toBe('a["bad key"]');
    expect(configError(() => validateAnnotations("a", { k: 1 as unknown as string })).problem).toBe(
      "1 is not a string",
    );
  });
});
