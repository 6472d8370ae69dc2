import * as fc from "fast-check";
import { renewBeforeHours, rotationTrigger, rotationWindowIndex } from "../../../lib/pki/rotation";
import { configError } from "../validation/config-error";

const HOUR = 3_600_000;
const validity = fc.integer({ min: 2, max: 87600 });
const time = fc.integer({ min: 0, max: 4_000_000_000_000 }); // up to year 2096

/** Validity with a renew-before margin below it. */
const policy = validity.chain((v) => fc.tuple(fc.constant(v), fc.integer({ min: 0, max: v - 1 })));

describe("rotationTrigger", () => {
  it("is stable within a window, so a no-change up stays a no-op", () => {
    fc.assert(
      fc.property(policy, time, fc.nat(), ([v, r], t, offset) => {
        const windowMs = (v - r) * HOUR;
        const start = Math.floor(t / windowMs) * windowMs;
        const later = start + (offset % windowMs);
        const at = (nowMs: number) => rotationTrigger({ validityHours: v, renewBeforeHours: r, nowMs });
        expect(at(later)).toBe(at(t));
      }),
    );
  });

  it("flips at least renewBefore hours before a certificate issued at any time expires", () => {
    fc.assert(
      fc.property(policy, time, ([v, r], issuedAt) => {
        const at = (nowMs: number) => rotationTrigger({ validityHours: v, renewBeforeHours: r, nowMs });
        const expiry = issuedAt + v * HOUR;
        const deadline = expiry - r * HOUR;
        expect(at(deadline)).not.toBe(at(issuedAt));
        // …and not absurdly early: the first flip is exactly at the next window boundary.
        const windowMs = (v - r) * HOUR;
        const flip = (Math.floor(issuedAt / windowMs) + 1) * windowMs;
        expect(flip).toBeLessThanOrEqual(deadline);
        expect(at(flip - 1)).toBe(at(issuedAt));
        expect(at(flip)).not.toBe(at(issuedAt));
      }),
    );
  });

  it("changes when the generation is bumped, and only then within a window", () => {
    fc.assert(
      fc.property(validity, time, fc.integer({ min: 0, max: 1000 }), (v, t, g) => {
        const at = (generation: number) => rotationTrigger({ validityHours: v, generation, nowMs: t });
        expect(at(g + 1)).not.toBe(at(g));
        expect(at(g)).toBe(at(g));
      }),
    );
    expect(rotationTrigger({ validityHours: 8760, nowMs: 0 })).toBe(
      rotationTrigger({ validityHours: 8760, generation: 0, nowMs: 0 }),
    );
  });

  it("defaults renewBefore to a third of the validity", () => {
    expect(renewBeforeHours(8760)).toBe(2920);
    expect(rotationTrigger({ validityHours: 8760, nowMs: 1e12 })).toBe(
      rotationTrigger({ validityHours: 8760, renewBeforeHours: 2920, nowMs: 1e12 }),
    );
  });

  it("window index counts whole windows since the epoch", () => {
    expect(rotationWindowIndex(0, 10, 4)).toBe(0);
    expect(rotationWindowIndex(6 * HOUR - 1, 10, 4)).toBe(0);
    expect(rotationWindowIndex(6 * HOUR, 10, 4)).toBe(1);
  });

  it("rejects margins not below the validity, negative generations and bad clocks", () => {
    const margin = configError(() => rotationTrigger({ validityHours: 24, renewBeforeHours: 24, nowMs: 0 }));
    expect(margin.message).toBe(
      "invalid rotation.renewBeforeHours: 24h is not below the validity of 24h (allowed: 0–23)",
    );
    expect(configError(() => rotationTrigger({ validityHours: 24, generation: -1, nowMs: 0 })).field).toBe(
      "rotation.generation",
    );
    expect(configError(() => rotationTrigger({ validityHours: 24, generation: 1.5, nowMs: 0 })).field).toBe(
      "rotation.generation",
    );
    expect(configError(() => rotationTrigger({ validityHours: 24, nowMs: Number.NaN })).field).toBe("now");
  });
});
