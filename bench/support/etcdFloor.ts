/**
 * The engine floor of bench/etcd-hosts.ts: what `pulumi up` costs with nothing to do. After each of our
 * runs, the graph it left (types, parents, dependencies, which resources it created, updated, replaced
 * or deleted) is replayed by bench/support/etcdFloorProgram.ts with resources that do nothing: the same CLI,
 * language host, plugins, engine steps and one SSH session per remote command, none of our work. Ours
 * minus the floor is what our scripts and certificates cost.
 */
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../../devkit/testbed";
import { EngineEnv } from "../../devkit/engine/env";
import { FLOOR_SHAPE_ENV, FloorShape } from "./etcdFloorShape";

/** The floor's own stack: a Pulumi project running bench/support/etcdFloorProgram.ts. */
export class FloorStack {
  private constructor(
    private readonly stack: Stack,
    private readonly shapeFile: string,
  ) {}

  /**
   * Creates the project under `engine.dir` and its stack, running etcdFloorProgram.ts or, when given,
   * `compiledProgram` (the same compiled to JavaScript: bench/support/compiledPrograms.ts).
   */
  static async create(engine: EngineEnv, compiledProgram?: string): Promise<FloorStack> {
    const dir = path.join(engine.dir, "floor");
    fs.mkdirSync(dir, { recursive: true });
    const main = compiledProgram ? "program.js" : "program.ts";
    const yaml = ["name: pk-etcd-floor", "runtime:", "  name: nodejs", "  options:"];
    yaml.push(`    typescript: ${compiledProgram ? "false" : "true"}`, `main: ${main}`, "");
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yaml.join("\n"));
    const links: Record<string, string> = {
      [main]: compiledProgram ?? path.join(REPO_ROOT, "bench", "support", "etcdFloorProgram.ts"),
      node_modules: path.join(REPO_ROOT, "node_modules"),
      "package.json": path.join(REPO_ROOT, "package.json"),
      "tsconfig.json": path.join(REPO_ROOT, "tsconfig.json"),
    };
    for (const [name, target] of Object.entries(links)) fs.symlinkSync(target, path.join(dir, name));
    const shapeFile = path.join(engine.dir, "floor-shape.json");
    const stack = await LocalWorkspace.createStack(
      { stackName: "floor", workDir: dir },
      {
        envVars: { ...engine.env, [FLOOR_SHAPE_ENV]: shapeFile },
        pulumiCommand: await engine.pulumiCommand(),
        secretsProvider: "passphrase",
      },
    );
    return new FloorStack(stack, shapeFile);
  }

  /** `pulumi up` of `shape`. */
  async up(shape: FloorShape): Promise<void> {
    // the throw-away SSH key travels in this file: owner-only
    fs.writeFileSync(`${this.shapeFile}.tmp`, JSON.stringify(shape), { mode: 0o600 });
    fs.renameSync(`${this.shapeFile}.tmp`, this.shapeFile);
    await this.stack.up({ color: "never" });
  }

  /** `pulumi destroy`. */
  async destroy(): Promise<void> {
    await this.stack.destroy({ color: "never" });
  }
}
