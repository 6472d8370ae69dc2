/**
 * The e2e tier's lab of real nodes (devkit/lab, `e2eLabSpec`), shared by every suite that runs pods:
 * the first suite that asks starts it, later suites (other jest workers too: a lock keeps them from
 * starting it twice) attach to the running one, and the e2e project's global teardown stops it
 * (test/support/labTeardown.ts). One lab, many estates.
 */
import { Lab, attachLab, startLab } from "./lab";
import { withLock } from "../lock";
import { e2eLabSpec } from "./labs";
import type { TierNeeds } from "../engine/tier";

/** What a suite on the lab needs, for its `e2eTier` guard. */
export const LAB_NEEDS: TierNeeds = {
  binaries: [
    "etcd",
    // the backup drills restore a snapshot into a new etcd and count its keys
    "etcdutl",
    "etcdctl",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kubelet",
    "kube-proxy",
    "kubectl",
    "containerd",
    "runc",
    "skopeo",
    "docker-registry",
    "nft",
    "nsenter",
    "karmadactl",
    "pulumi",
    "pulumi-language-nodejs",
  ],
  plugins: ["tls", "random", "kubernetes"],
};

let started: Promise<Lab> | undefined;

/** The e2e lab: attached when up, else started (once per test run, whichever worker asks first). */
export function useLab(): Promise<Lab> {
  // jest workers run suites side by side, and only one of them may start the lab
  started ??= withLock(
    `${e2eLabSpec().dir}.lock`,
    async () => attachLab(e2eLabSpec().dir) ?? (await startLab(e2eLabSpec())),
  );
  return started;
}
