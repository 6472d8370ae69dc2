import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { OperationRegistry, StackBusyError } from "../../../console/server/operations";
import { ProgressEvent } from "../../../console/server/progress";

const step = (seq: number): ProgressEvent => ({
  kind: "status",
  seq,
  at: "2026-11-29T00:00:00Z",
  status: "running",
});

describe("operations", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-console-ops-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("one per stack: a second is refused naming the first; other stacks go on; the stack is free once it ends", () => {
    const registry = new OperationRegistry(dir);
    const up = registry.begin("dev", "up", "ci");
    expect(() => registry.begin("dev", "destroy", "ops")).toThrow(StackBusyError);
    try {
      registry.begin("dev", "preview", "ops");
    } catch (e) {
      expect((e as StackBusyError).running.id).toBe(up.id);
    }
    expect(registry.begin("prod", "refresh", "ci").stack).toBe("prod");
    registry.finish(up.id, "succeeded");
    expect(registry.begin("dev", "destroy", "ops").kind).toBe("destroy");
  });

  it("replays the events so far to a late subscriber, then the live ones, then the end", () => {
    const registry = new OperationRegistry(dir);
    const { id } = registry.begin("dev", "up", "ci");
    registry.emit(id, step(1));
    const seen: (number | "end")[] = [];
    registry.subscribe(id, (event) => seen.push(event ? event.seq : "end"));
    registry.emit(id, step(2));
    registry.finish(id, "succeeded");
    expect(seen).toEqual([1, 2, "end"]);
    const late: (number | "end")[] = [];
    registry.subscribe(id, (event) => late.push(event ? event.seq : "end"));
    expect(late).toEqual([1, 2, "end"]);
  });

  it("keeps finished operations across a restart; one cut by a stop is failed, not running forever", () => {
    const first = new OperationRegistry(dir);
    const done = first.begin("dev", "up", "ci", new Date("2026-11-29T00:00:00Z"));
    first.emit(done.id, {
      kind: "summary",
      seq: 1,
      at: "2026-11-29T00:00:01Z",
      changes: { create: 2 },
      durationSeconds: 1,
    });
    first.finish(done.id, "succeeded", undefined, new Date("2026-11-29T00:00:02Z"));
    const cut = first.begin("dev", "refresh", "ci", new Date("2026-11-29T00:01:00Z"));
    // what a server stopped mid-operation leaves: the record written while running
    fs.writeFileSync(
      path.join(dir, "operations", `${cut.id}.json`),
      JSON.stringify({ record: cut, events: [] }),
    );
    const second = new OperationRegistry(dir);
    expect(second.list("dev").map((r) => [r.kind, r.status])).toEqual([
      ["refresh", "failed"],
      ["up", "succeeded"],
    ]);
    expect(second.get(done.id)).toMatchObject({
      changes: { create: 2 },
      finishedAt: "2026-11-29T00:00:02.000Z",
    });
    expect(second.get(cut.id)!.error).toMatch(/stopped during the operation/);
    expect(second.runningOn("dev")).toBeUndefined();
  });
});
