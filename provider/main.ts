/**
 * Entry point of the plugin (provider/package.json `main`, compiled): the Node.js language host requires
 * this module, which starts the gRPC server the engine talks to.
 */
import * as fs from "fs";
import { main } from "@pulumi/pulumi/provider";
import { registerComponentModule } from "./liveComponents";
import { karmadaProvider, schemaPath } from "./provider";

const provider = karmadaProvider(fs.readFileSync(schemaPath(), "utf8"));
registerComponentModule(provider.version);
void main(provider, process.argv.slice(2));
