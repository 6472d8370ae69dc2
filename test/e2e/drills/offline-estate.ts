/**
 * The offline drill's program, run by test/e2e/offline.test.ts inside a network namespace that has only
 * loopback (`unshare --net`): the local binary estate of `npm start` — etcd on 3 hosts, the control plane
 * on 2 behind a VIP, 2 push + 1 pull members — brought up by the real engine with no network at all.
 * Binaries come from the estate's loopback mirror checked by sha256, the CRD bundle from a local path,
 * the plugins from the test bed. Prints one `OFFLINE_DRILL {json}` line with what it found.
 */
import * as fs from "fs";
import * as os from "os";
import { startAgentsAndWait, readyClusters, writeAdminKubeconfig } from "../../../scripts/sandbox/estate";
import { localStackConfig } from "../../../scripts/sandbox/stack";
import { startLocalEstate } from "../../support/engine/localEstate";
import { credentialsFromKubeconfig } from "../../support/kube/client";
import { DRILL_LINE, OfflineDrillReport } from "./offline-report";

async function main(): Promise<void> {
  const interfaces = Object.keys(os.networkInterfaces()).filter((name) => name !== "lo");
  const estate = await startLocalEstate("pk-offline-");
  try {
    const { stack, local } = await estate.stack();
    const config = localStackConfig(estate.bed) as Record<string, any>;
    const artifacts = Object.entries(estate.bed.artifacts).map(([name, a]) => ({
      name,
      url: a.url,
      sha256: /^[0-9a-f]{64}$/.test(a.sha256),
    }));
    const started = Date.now();
    const up = await stack.up({ color: "never" });
    const upSeconds = (Date.now() - started) / 1000;
    const kubeconfigFile = writeAdminKubeconfig(estate.dir, local);
    await startAgentsAndWait(estate.bed, kubeconfigFile);
    const ready = await readyClusters(credentialsFromKubeconfig(fs.readFileSync(kubeconfigFile, "utf8")));
    const report: OfflineDrillReport = {
      interfaces,
      artifacts,
      crds: config["karmada:crds"],
      upResult: up.summary.result,
      created: up.summary.resourceChanges?.create ?? 0,
      readyClusters: ready,
      upSeconds,
    };
    console.log(`${DRILL_LINE}${JSON.stringify(report)}`);
  } finally {
    await estate.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
