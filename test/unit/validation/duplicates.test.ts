import * as fc from "fast-check";
import { findDuplicates, validateUnique } from "../../../lib/validation/duplicates";
import { configError } from "./config-error";

describe("duplicate detection", () => {
  it("passes exactly the lists without repeats", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 })), (values) => {
        const unique = new Set(values).size === values.length;
        expect(findDuplicates(values).length).toBe(values.length - new Set(values).size);
        if (unique) expect(validateUnique("list", values)).toBe(values);
        else expect(() => validateUnique("list", values)).toThrow();
      }),
    );
  });

  it("names the duplicate and both positions", () => {
    const error = configError(() =>
      validateUnique("apiServer.extraSans", ["a.example.com", "10.0.0.1", "a.example.com"]),
    );
    expect(error.field).toBe("apiServer.extraSans[2]");
    expect(error.message).toBe(
      'invalid apiServer.extraSans[2]: duplicate "a.example.com" (already at apiServer.extraSans[0]) (allowed: each value once)',
    );
  });

  it("compares by the given key", () => {
    const dupes = findDuplicates(["A", "b", "a", "B"], (s) => s.toLowerCase());
    expect(dupes).toEqual([
      { value: "a", firstIndex: 0, index: 2 },
      { value: "B", firstIndex: 1, index: 3 },
    ]);
  });
});
