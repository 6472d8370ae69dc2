import * as fc from "fast-check";
import {
  formatFeatureGates,
  parseFeatureGates,
  validateFeatureGates,
} from "../../../lib/validation/feature-gates";
import { configError } from "./config-error";

const gateName = fc.stringMatching(/^[A-Z][A-Za-z0-9]{0,20}$/);
const gates = fc.dictionary(gateName, fc.boolean());

describe("feature gates", () => {
  it("round-trip through the flag string form", () => {
    fc.assert(
      fc.property(gates, (map) => {
        expect(validateFeatureGates("featureGates", map)).toBe(map);
        const text = formatFeatureGates(map);
        expect(parseFeatureGates("f", text)).toEqual(map);
        expect(formatFeatureGates(parseFeatureGates("f", text))).toBe(text);
      }),
    );
  });

  it("formats sorted by name, so the rendered flag is stable", () => {
    expect(formatFeatureGates({ PropagateDeps: false, Failover: true })).toBe(
      "Failover=true,PropagateDeps=false",
    );
    expect(formatFeatureGates({})).toBe("");
  });

  it("parses with blanks around entries and treats the empty string as no gates", () => {
    expect(parseFeatureGates("f", " Failover=true , PropagateDeps=false ")).toEqual({
      Failover: true,
      PropagateDeps: false,
    });
    expect(parseFeatureGates("f", "  ")).toEqual({});
  });

  it.each([
    ["failover=true", '"failover" is not a feature gate name'],
    ["Failover", 'entry "Failover" is not Name=true|false'],
    ["Failover=yes", 'value "yes" of Failover is not a boolean'],
    ["Failover=True", 'value "True" of Failover is not a boolean'],
    ["Failover=true,,A=false", 'entry "" is not Name=true|false'],
    ["Failover=true,Failover=false", 'duplicate feature gate "Failover"'],
  ])("rejects %j", (text, problem) => {
    const error = configError(() =>
      parseFeatureGates("components.karmada-scheduler.extraArgs.feature-gates", text),
    );
    expect(error.field).toBe("components.karmada-scheduler.extraArgs.feature-gates");
    expect(error.problem).toBe(problem);
  });

  it("rejects bad names and non-boolean values in maps, naming the entry", () => {
    const name = configError(() => validateFeatureGates("featureGates", { "Bad-Name": true }));
    expect(name.field).toBe('featureGates["Bad-Name"]');
    expect(name.allowed).toBe("UpperCamelCase: a capital letter, then letters and digits");
    const value = configError(() =>
      validateFeatureGates("featureGates", { Failover: "true" as unknown as boolean }),
    );
    expect(value.message).toBe(
      'invalid featureGates["Failover"]: "true" is not a boolean (allowed: true, false)',
    );
  });
});
