/**
 * Plans return resolved values (issue 35): each component's constructor hands its raw args to its plan
 * (`plan<Component>(name, args, opts)`) and reads nothing of them afterwards — every default is applied
 * once, in the plan, and what the component wires comes from the plan's resolved values.
 */
import * as fs from "fs";
import * as path from "path";

const COMPONENTS = ["etcdCluster", "karmadaControlPlane", "memberRegistration", "addon"];

/** Each read of `args` after the plan call in `source`, comments removed (throws without a plan call). */
function argsReadsAfterPlan(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  const call = /\bplan\w+\(name, args, opts\)/.exec(code);
  if (!call) throw new Error("no plan…(name, args, opts) call");
  return code.slice(call.index + call[0].length).match(/\bargs\b[^\n]*/g) ?? [];
}

const source = (file: string) =>
  fs.readFileSync(path.join(__dirname, "../../../components", `${file}.ts`), "utf8");

describe("components read their args only through their plan", () => {
  test.each(COMPONENTS)("%s", (file) => {
    expect(argsReadsAfterPlan(source(file))).toEqual([]);
  });

  test("a component that re-reads an argument after its plan is caught; comments do not count", () => {
    const code = [
      "// args.crds is resolved by the plan",
      "const plan = planX(name, args, opts);",
      "/* args.pki too */",
      "const crds = args.crds ?? {};",
    ].join("\n");
    expect(argsReadsAfterPlan(code)).toEqual(["args.crds ?? {};"]);
    expect(() => argsReadsAfterPlan("const x = 1;")).toThrow("no plan…(name, args, opts) call");
  });
});
