import { AddonConfig, CONTROL_PLANE_BUILTINS } from "../../../lib/addons/config";
import { validateAddonConfig } from "../../../lib/addons/validate";
import { ESTIMATOR_OWNED_FLAGS, estimatorManifests } from "../../../lib/addons/estimator";
import { CONTROL_PLANE_OWNED_FLAGS } from "../../../lib/controlplane/flags-owned";
import { testSettings } from "../../support/settings";
import { configError } from "../validation/config-error";

const withArgs = (kind: AddonConfig["kind"], extraArgs: Record<string, string>): AddonConfig => ({
  kind,
  overrides: { extraArgs },
});

describe("built-in addons refuse the flags they own in overrides.extraArgs", () => {
  const builtins = Object.entries(CONTROL_PLANE_BUILTINS).flatMap(([kind, component]) =>
    Object.keys(CONTROL_PLANE_OWNED_FLAGS[component]).map((flag): [AddonConfig["kind"], string] => [
      kind as AddonConfig["kind"],
      flag,
    ]),
  );
  test.each(builtins)("%s: --%s", (kind, flag) => {
    const error = configError(() => validateAddonConfig(withArgs(kind, { [flag]: "x" }), []));
    expect(error.field).toBe(`overrides.extraArgs[${JSON.stringify(flag)}]`);
    expect(error.problem).toMatch(new RegExp(`^--${flag} is set by the ${kind} addon from `));
  });

  test.each(Object.keys(ESTIMATOR_OWNED_FLAGS).map((f) => [f]))("schedulerEstimator: --%s", (flag) => {
    const error = configError(() =>
      validateAddonConfig(withArgs("schedulerEstimator", { [flag]: "x" }), ["m1"]),
    );
    expect(error.field).toBe(`overrides.extraArgs[${JSON.stringify(flag)}]`);
    expect(error.problem).toBe(
      `--${flag} is set by the schedulerEstimator addon from ${ESTIMATOR_OWNED_FLAGS[flag]}`,
    );
  });

  it("accepts tunables", () => {
    expect(() =>
      validateAddonConfig(withArgs("descheduler", { v: "4", "kube-api-qps": "50" }), []),
    ).not.toThrow();
    expect(() => validateAddonConfig(withArgs("schedulerEstimator", { v: "4" }), ["m1"])).not.toThrow();
  });

  it("the estimator generates every flag it owns, and its renderer refuses them too", () => {
    const [deployment] = estimatorManifests(testSettings(), "m1");
    const args: string[] = (deployment as any).spec.template.spec.containers[0].args;
    expect(args.map((a) => a.slice(2, a.indexOf("=")))).toEqual(
      expect.arrayContaining(Object.keys(ESTIMATOR_OWNED_FLAGS)),
    );
    const error = configError(() =>
      estimatorManifests(testSettings(), "m1", { extraArgs: { "server-port": "1" } }),
    );
    expect(error.field).toBe('overrides.extraArgs["server-port"]');
  });
});
