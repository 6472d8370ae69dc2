/** The Karmada CRD bundle the e2e stacks install from disk (no downloads here). */
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT, testbedEnv } from "../testbed";

/** The test bed's release tarball when built, else test/fixtures/crds (machines without the test bed). */
export function crdSourceForTests(): { kind: "path"; path: string } {
  const bundle = testbedEnv().env.TESTBED_KARMADA_CRDS;
  if (bundle && fs.existsSync(bundle)) return { kind: "path", path: bundle };
  return { kind: "path", path: path.join(REPO_ROOT, "test", "fixtures", "crds") };
}
