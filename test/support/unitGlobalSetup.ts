/**
 * globalSetup of the unit project: fetches the upstream Go modules the unit tests compare against, once,
 * before any test, and hands their directories to the test workers (they inherit this process's
 * environment). A module that cannot be fetched stops the run with an error naming it and the command;
 * `PULUMI_KARMADA_NO_GO=1` fetches nothing and the suites that need the modules are skipped loudly.
 */
import { SPEC_PATH_ENV } from "./openapi";
import {
  GoModule,
  KARMADA_MODULE,
  KUBERNETES_MODULE,
  MODULE_DIRS_ENV,
  NO_GO_ENV,
  downloadCommand,
  downloadModule,
  moduleId,
  noGo,
} from "./upstream";

/** Fetches the modules and exports {@link MODULE_DIRS_ENV}. */
export default function unitGlobalSetup(): void {
  // an explicit swagger.json stands in for the Kubernetes module, which is needed only for that file
  const modules = process.env[SPEC_PATH_ENV] ? [KARMADA_MODULE] : [KUBERNETES_MODULE, KARMADA_MODULE];
  if (noGo()) {
    const banner = `${NO_GO_ENV}=1: NOT fetching ${modules.map(moduleId).join(", ")}; the unit suites that need Go (upstream comparisons, the test-bed engine) are SKIPPED`;
    const rule = "!".repeat(Math.min(banner.length, 100));
    process.stderr.write(`\n${rule}\n${banner}\n${rule}\n`);
    return;
  }
  const announce = (module: GoModule) =>
    process.stderr.write(`\nunit tests: fetching ${moduleId(module)} (${downloadCommand(module)}), once…\n`);
  const dirs = Object.fromEntries(modules.map((m) => [moduleId(m), downloadModule(m, announce)]));
  process.env[MODULE_DIRS_ENV] = JSON.stringify(dirs);
}
