import * as fc from "fast-check";
import {
  providerSlotInUse,
  renewBeforeHours,
  rotationTrigger,
  rotationWindowIndex,
  slotRotationTrigger,
  slotWindowHours,
} from "../../../lib/pki/rotation";
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

describe("provider slots", () => {
  const HOUR = 3_600_000;
  const validity = fc.integer({ min: 3, max: 87_600 });
  const moment = fc.integer({ min: 0, max: 4_000_000_000_000 });

  it("the slot in use was not renewed when the current window began: its trigger is the one of the window before", () => {
    fc.assert(
      fc.property(validity, moment, (hours, now) => {
        const window = slotWindowHours(hours) * HOUR;
        const start = Math.floor(now / window) * window;
        fc.pre(start >= window);
        const slot = providerSlotInUse(hours, now);
        expect(slotRotationTrigger(slot, hours, now)).toBe(slotRotationTrigger(slot, hours, start - 1));
        // and the other one was: it is the slot being renewed now
        const other = slot === "a" ? "b" : "a";
        expect(slotRotationTrigger(other, hours, now)).not.toBe(slotRotationTrigger(other, hours, start - 1));
      }),
    );
  });

  it("a slot in use is at most two windows old, less than its validity (one `up` per window)", () => {
    fc.assert(
      fc.property(validity, moment, (hours, now) => {
        const window = slotWindowHours(hours) * HOUR;
        const slot = providerSlotInUse(hours, now);
        // the earliest moment with the same trigger: when the slot was (at the earliest) renewed
        let issued = Math.floor(now / window) * window;
        while (
          issued >= window &&
          slotRotationTrigger(slot, hours, issued - 1) === slotRotationTrigger(slot, hours, now)
        )
          issued -= window;
        const endOfUse = (Math.floor(now / window) + 1) * window;
        expect(endOfUse - issued).toBeLessThanOrEqual(2 * window);
        expect(2 * window).toBeLessThan(hours * HOUR);
      }),
    );
  });

  it("each slot renews every second window, the two a window apart; a steady clock changes nothing", () => {
    const hours = 8760;
    const window = slotWindowHours(hours) * HOUR;
    expect(slotWindowHours(hours)).toBe(2920);
    const at = (k: number) => k * window + 1;
    const triggers = (slot: "a" | "b") => [0, 1, 2, 3, 4].map((k) => slotRotationTrigger(slot, hours, at(k)));
    expect(triggers("a")).toEqual([0, 0, 1, 1, 2].map((t) => `slot=a;window=5840h/${t}`));
    expect(triggers("b")).toEqual([0, 1, 1, 2, 2].map((t) => `slot=b;window=5840h/${t}`));
    expect([0, 1, 2, 3].map((k) => providerSlotInUse(hours, at(k)))).toEqual(["b", "a", "b", "a"]);
    expect(slotRotationTrigger("a", hours, at(2))).toBe(slotRotationTrigger("a", hours, at(2) + window - 2));
  });
});
