/**
 * The bare program of the binary-estate bench's "same resources" floor, run by the engine in a project
 * of its own (bench/support/stateReplayProject.ts): registers every resource of the exported deployment
 * named by PK_REPLAY_DEPLOYMENT again through the plain SDK classes (graphReplay.ts), and exports the
 * stack's outputs as they were.
 */
import * as fs from "fs";
import { replayGraph, withSecrets } from "./graphReplay";
import { ExportedDeployment, requestsOfDeployment, stackOutputsOfDeployment } from "./stateReplay";

const file = process.env.PK_REPLAY_DEPLOYMENT;
if (!file)
  throw new Error("PK_REPLAY_DEPLOYMENT: the exported deployment (pulumi stack export --show-secrets)");
const exported = JSON.parse(fs.readFileSync(file, "utf8")) as ExportedDeployment;
replayGraph(requestsOfDeployment(exported), "as-recorded");
module.exports = withSecrets(stackOutputsOfDeployment(exported));
