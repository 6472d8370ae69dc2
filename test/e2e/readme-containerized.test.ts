/**
 * `npm run start:containerized` the way a new machine runs it (issue 51): on a test-bed cache holding only
 * what its own set-up step builds (hard-linked from the full cache, nothing rebuilt, an environment that
 * knows nothing else), the containerized estate comes up on the sandbox lab's real nodes and the sample's
 * pods run in both members; `npm run stop:containerized` leaves nothing of it. The sandbox lab
 * (10.232.0.0/16) is its own: this suite runs beside any other.
 */
import { e2eTier } from "../../devkit/engine/tier";
import { labLeftovers, stopLab } from "../../devkit/lab/lab";
import { sandboxLabSpec } from "../../devkit/lab/labs";
import { LAB_NEEDS } from "../../devkit/lab/useLab";
import { planLab } from "../../devkit/lab/plan";
import * as path from "path";
import { NewMachine, newMachine, seedCache } from "../support/newMachine";

jest.setTimeout(30 * 60_000);

const tier = e2eTier(
  "npm run start:containerized on a new machine (test/e2e/readme-containerized.test.ts)",
  LAB_NEEDS,
);

tier.describe("npm run start:containerized on a new machine", () => {
  let machine: NewMachine;
  /** The sandbox lab as `npm run start:containerized` makes it under the new machine's cache. */
  const lab = () => planLab({ ...sandboxLabSpec(), dir: path.join(machine.cache, "labs", "sandbox") });

  beforeAll(() => {
    machine = newMachine();
    console.log(`the new machine's cache holds: ${seedCache(machine.cache, "containerized").join(", ")}`);
  });

  afterAll(async () => {
    console.log(`timings (s): ${JSON.stringify(machine?.timings)}; commands' output: ${machine?.log}`);
    if (machine) await stopLab(lab()).catch((e) => console.log(`cleanup: ${(e as Error).message}`));
    machine?.remove();
  });

  test("with only what its set-up step builds: the sample's pods run in both members; npm run stop:containerized removes everything", async () => {
    const output = await machine.npm(
      "npm run start:containerized",
      ["run", "start:containerized"],
      20 * 60_000,
    );
    expect(output).not.toMatch(/\[testbed\] building /);
    expect(output).toMatch(/lab sandbox: a new one \(no lab was started there before\)/);
    expect(output).toMatch(/Karmada is up on real nodes/);
    for (const m of ["member1", "member2"]) {
      const lines = output.split("\n").filter((l) => l.startsWith(`  ${m}: web-`));
      expect(lines).toHaveLength(2);
      for (const l of lines) expect(l).toMatch(/ Running true$/);
    }
    const stopped = await machine.npm(
      "npm run stop:containerized",
      ["run", "stop:containerized"],
      8 * 60_000,
    );
    expect(stopped).toMatch(/containerized sandbox removed/);
    expect(labLeftovers(lab())).toEqual([]);
  });
});
