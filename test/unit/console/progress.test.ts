import type { EngineEvent } from "@pulumi/pulumi/automation";
import { ProgressTracker } from "../../../console/server/progress";

const URN =
  "urn:pulumi:dev::estate::karmada:index:KarmadaControlPlane$random:index/randomId:RandomId::karmada-scheduler";

const metadata = { op: "create", urn: URN, type: "random:index/randomId:RandomId", provider: "p" } as any;
const event = (fields: Partial<EngineEvent>): EngineEvent =>
  ({ sequence: 1, timestamp: 1, ...fields }) as EngineEvent;

describe("progress events", () => {
  it("a step's start and end, with the time between them, the resource named from its URN", () => {
    let now = 1_000;
    const tracker = new ProgressTracker(() => now);
    const [start] = tracker.consume(event({ resourcePreEvent: { metadata } }));
    now = 3_500;
    const [end] = tracker.consume(event({ resOutputsEvent: { metadata } }));
    expect(start).toMatchObject({ kind: "step", seq: 1, status: "started", op: "create" });
    expect(end).toEqual({
      kind: "step",
      seq: 2,
      at: new Date(3_500).toISOString(),
      resource: { urn: URN, type: "random:index/randomId:RandomId", name: "karmada-scheduler" },
      op: "create",
      status: "done",
      durationMs: 2_500,
    });
    const [failed] = tracker.consume(event({ resOpFailedEvent: { metadata, status: 1, steps: 1 } }));
    expect(failed).toMatchObject({ status: "failed", seq: 3 });
    expect(failed).not.toHaveProperty("durationMs");
  });

  it("passes on what a person reads, never debug output, inputs or outputs", () => {
    const tracker = new ProgressTracker(() => 0);
    const diagnostic = (severity: string, message = "m", ephemeral = false) =>
      tracker.consume(event({ diagnosticEvent: { severity, message, color: "never", ephemeral } as any }));
    expect(diagnostic("debug", "RegisterResource inputs: {password: hunter2}")).toEqual([]);
    expect(diagnostic("info", "progress", true)).toEqual([]);
    expect(diagnostic("info", "   ")).toEqual([]);
    expect(diagnostic("info#err", "stderr line")).toEqual([
      expect.objectContaining({ kind: "diagnostic", severity: "info", message: "stderr line" }),
    ]);
    expect(diagnostic("warning")[0]).toMatchObject({ severity: "warning" });
    expect(tracker.consume(event({ stdoutEvent: { message: "Updating (dev)", color: "never" } }))).toEqual(
      [],
    );
    const withState = {
      ...metadata,
      new: { inputs: { password: "hunter2" }, outputs: { result: "hunter2" } },
    };
    expect(
      JSON.stringify(tracker.consume(event({ resourcePreEvent: { metadata: withState } }))),
    ).not.toContain("hunter2");
  });

  it("the summary and the operation's own status", () => {
    const tracker = new ProgressTracker(() => 0);
    const [summary] = tracker.consume(
      event({
        summaryEvent: {
          maybeCorrupt: false,
          durationSeconds: 12,
          resourceChanges: { create: 3, same: 4 },
          policyPacks: {},
        },
      }),
    );
    expect(summary).toMatchObject({ kind: "summary", changes: { create: 3, same: 4 }, durationSeconds: 12 });
    expect(tracker.status("failed", "why")).toMatchObject({
      kind: "status",
      seq: 2,
      status: "failed",
      message: "why",
    });
  });
});
