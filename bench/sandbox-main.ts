/**
 * The sandbox program as the Pulumi CLI runs it (in its own Node.js language host, like `pulumi up`
 * in a project): the description comes from the JSON file named by PK_SANDBOX_DESCRIPTION, the variant
 * from PK_SANDBOX_VARIANT. Running out of process keeps a failed update's dropped engine connection
 * away from the test process.
 */
import * as fs from "fs";
import { SandboxDescription, sandboxProgram, SandboxVariant } from "./sandbox-program";

const descriptionFile = process.env.PK_SANDBOX_DESCRIPTION;
if (!descriptionFile) throw new Error("PK_SANDBOX_DESCRIPTION (the sandbox description file) is not set");
const description = JSON.parse(fs.readFileSync(descriptionFile, "utf8")) as SandboxDescription;
const variant = JSON.parse(process.env.PK_SANDBOX_VARIANT || "{}") as SandboxVariant;

export = sandboxProgram(description, variant)();
