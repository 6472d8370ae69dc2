/**
 * The availability watch's report (test/support/kube/availability.ts): the longest stretch without a
 * good answer is what the control-plane replacement drill asserts on, so its arithmetic is checked here.
 */
import { AvailabilitySample, availabilityReport } from "../../support/kube/availability";

const ok = (atMs: number, tookMs = 10): AvailabilitySample => ({ atMs, tookMs, ok: true });
const failed = (atMs: number, failure: string, tookMs = 10): AvailabilitySample => ({
  atMs,
  tookMs,
  ok: false,
  failure,
});

describe("availabilityReport", () => {
  test("every poll answered: the longest gap is the widest pause between one answer and the next request", () => {
    expect(availabilityReport([ok(0), ok(300), ok(550), ok(800)])).toEqual({
      polls: 4,
      failures: 0,
      longestGapMs: 290,
      longestOutageMs: 0,
      slowestAnswerMs: 10,
      failureKinds: [],
    });
  });

  test("a slow answer is served time, not a gap; it shows as the slowest answer", () => {
    const report = availabilityReport([ok(0), ok(260, 4000), ok(4510)]);
    expect(report.longestGapMs).toBe(250);
    expect(report.slowestAnswerMs).toBe(4000);
  });

  test("failures in the middle: the gap runs from the last good answer to the next good request", () => {
    const report = availabilityReport([
      ok(0),
      failed(250, "HTTP 500"),
      failed(500, "connect ECONNREFUSED"),
      failed(750, "HTTP 500", 3000),
      ok(4000),
      ok(4250),
    ]);
    expect(report.longestGapMs).toBe(3990);
    expect(report.longestOutageMs).toBe(3990);
    expect(report.failures).toBe(3);
    expect(report.failureKinds).toEqual(["2× HTTP 500", "1× connect ECONNREFUSED"]);
  });

  test("failures at either edge count from the first request or up to the last answer", () => {
    expect(availabilityReport([failed(0, "x"), failed(250, "x"), ok(500), ok(750)]).longestGapMs).toBe(500);
    expect(availabilityReport([ok(0), ok(250), failed(500, "x", 2000)]).longestGapMs).toBe(2240);
    expect(availabilityReport([failed(100, "x"), failed(400, "x", 50)])).toMatchObject({
      longestGapMs: 350,
      longestOutageMs: 350,
      slowestAnswerMs: 0,
    });
  });

  test("a watch that was itself late (nothing failed) has a gap but no outage; a later short outage is its own", () => {
    const report = availabilityReport([ok(0), ok(2000), failed(2250, "socket hang up"), ok(2500), ok(2750)]);
    expect(report.longestGapMs).toBe(1990);
    expect(report.longestOutageMs).toBe(490);
  });

  test("no polls: nothing seen, no gap", () => {
    expect(availabilityReport([])).toEqual({
      polls: 0,
      failures: 0,
      longestGapMs: 0,
      longestOutageMs: 0,
      slowestAnswerMs: 0,
      failureKinds: [],
    });
  });
});
