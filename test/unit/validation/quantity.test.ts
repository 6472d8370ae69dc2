import * as fc from "fast-check";
import {
  parseQuantity,
  QUANTITY_SUFFIXES,
  validateQuantity,
  validateResources,
} from "../../../lib/validation/quantity";
import { configError } from "./config-error";

describe("Kubernetes quantities", () => {
  it.each([
    ["500m", 0.5],
    ["2", 2],
    ["1.5", 1.5],
    [".5", 0.5],
    ["1Gi", 2 ** 30],
    ["512Mi", 512 * 2 ** 20],
    ["1k", 1000],
    ["1M", 1e6],
    ["1E", 1e18],
    ["1e3", 1000],
    ["2E-3", 0.002],
    ["100u", 1e-4],
  ])("%s is %d", (text, value) => {
    expect(validateQuantity("f", text)).toBeCloseTo(value, 12);
  });

  it("every integer with every suffix parses to integer × multiplier", () => {
    const suffix = fc.constantFrom(...Object.keys(QUANTITY_SUFFIXES));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), suffix, (n, s) => {
        const expected = n * QUANTITY_SUFFIXES[s];
        const parsed = parseQuantity(`${n}${s}`)!;
        expect(Math.abs(parsed - expected)).toBeLessThanOrEqual(Math.abs(expected) * 1e-12);
      }),
    );
  });

  it.each(["1Gb", "1 Gi", "-1", "+1", "1.2.3", "Gi", "", "1gi", "1K", "1e", "0x10", "1mi", "1Ki2"])(
    "rejects %j with the allowed forms",
    (text) => {
      const error = configError(() =>
        validateQuantity("components.karmadaScheduler.resources.requests.cpu", text),
      );
      expect(error.field).toBe("components.karmadaScheduler.resources.requests.cpu");
      expect(error.problem).toBe(`${JSON.stringify(text)} is not a resource quantity`);
      expect(error.allowed).toContain("e.g. 500m, 2, 1Gi, 512Mi");
    },
  );
});

describe("validateResources", () => {
  it("accepts standard and extended resources with requests within limits", () => {
    const resources = {
      requests: { cpu: "500m", memory: "1Gi", "example.com/gpu": "1" },
      limits: { cpu: "1", memory: "1024Mi", "example.com/gpu": "1" },
    };
    expect(validateResources("resources", resources)).toBe(resources);
  });

  it.each([
    [{ requests: { "example.com/gpu": "1" } }, 'r.requests["example.com/gpu"]', /has no limit/],
    [
      { requests: { "example.com/gpu": "1" }, limits: { "example.com/gpu": "2" } },
      'r.requests["example.com/gpu"]',
      /differs from limit/,
    ],
    [{ limits: { "example.com/gpu": "1.5" } }, 'r.limits["example.com/gpu"]', /not a whole number/],
    [{ limits: { toString: "1" } }, "r.limits.toString", /not a resource name/],
    [{ limits: { "kubernetes.io/thing": "1" } }, 'r.limits["kubernetes.io/thing"]', /not a resource name/],
    [
      { limits: { "hugepages-2Mi": "3Mi", memory: "1Gi" } },
      'r.limits["hugepages-2Mi"]',
      /whole number of 2Mi pages/,
    ],
    [{ limits: { "hugepages-2Mi": "4Mi" } }, "r", /without cpu or memory/],
    [{ requests: "cpu=1" }, "r.requests", /is not a map/],
  ])("refuses what the API server would: %j", (resources, field, problem) => {
    const error = configError(() => validateResources("r", resources as never));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(problem);
  });

  it("rejects a request above its limit, naming both", () => {
    const error = configError(() =>
      validateResources("components.karmada-scheduler.resources", {
        requests: { memory: "2Gi" },
        limits: { memory: "1Gi" },
      }),
    );
    expect(error.message).toBe(
      'invalid components.karmada-scheduler.resources.requests.memory: request "2Gi" exceeds limit "1Gi" (allowed: at most 1Gi)',
    );
  });

  it("names the bad quantity and the bad resource name", () => {
    expect(configError(() => validateResources("r", { limits: { cpu: "1 core" } })).field).toBe(
      "r.limits.cpu",
    );
    expect(configError(() => validateResources("r", { limits: { "bad name": "1" } })).problem).toBe(
      '"bad name" is not a resource name',
    );
  });
});
