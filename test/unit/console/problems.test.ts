import { ConfigError, ConfigErrors } from "../../../lib/validation/errors";
import { engineProblem, fieldProblemsInText, settingsProblem } from "../../../console/server/problems";

describe("problems", () => {
  it("a ConfigError names every field with what is wrong and what is allowed", () => {
    const problem = settingsProblem(
      new ConfigErrors("stack", [
        new ConfigError("karmada:etcd.replicas", "4 is even", "1, 3, 5, 7"),
        new ConfigError("karmada:controlPlane.mode", '"vm" is not a mode'),
      ]),
    );
    expect(problem).toMatchObject({ status: 422, title: "Invalid settings" });
    expect(problem.fields).toEqual([
      { field: "karmada:etcd.replicas", problem: "4 is even", allowed: "1, 3, 5, 7" },
      { field: "karmada:controlPlane.mode", problem: '"vm" is not a mode' },
    ]);
  });

  it("finds the library's setting errors in the engine's output", () => {
    const stderr = [
      "error: Running program '/srv/estate' failed with an unhandled exception:",
      '    ConfigError: invalid karmada:controlPlane.components.scheduler.image: "Not An Image" is not an image reference (allowed: registry/repository:tag)',
      "        at new KarmadaControlPlane (/srv/estate/components/karmadaControlPlane.ts:120:11)",
      '    ConfigError: invalid karmada:controlPlane.components.scheduler.image: "Not An Image" is not an image reference (allowed: registry/repository:tag)',
    ].join("\n");
    expect(fieldProblemsInText(stderr)).toEqual([
      {
        field: "karmada:controlPlane.components.scheduler.image",
        problem: '"Not An Image" is not an image reference',
        allowed: "registry/repository:tag",
      },
    ]);
    expect(engineProblem(stderr).status).toBe(422);
    expect(engineProblem("error: connection refused").status).toBe(502);
  });
});
