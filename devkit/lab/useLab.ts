/**
 * The e2e tier's lab of real nodes (devkit/lab, `e2eLabSpec`), shared by every suite that runs pods:
 * the first suite that asks starts it, later suites (other jest workers too: a lock keeps them from
 * starting it twice) attach to the running one, and the e2e project's global teardown stops it
 * (test/support/labTeardown.ts). One lab, many estates.
 */
import * as fs from "fs";
import * as path from "path";
import { Lab, attachLab, startLab } from "./lab";
import { isRunning } from "../processes";
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` holding a lock directory next to the lab's (mkdir is atomic): jest workers run suites side
 * by side, and only one of them may start the lab. A lock whose holder is gone is taken over.
 */
async function withLabLock<T>(work: () => Promise<T>): Promise<T> {
  const lock = `${e2eLabSpec().dir}.lock`;
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, "pid"), String(process.pid));
      break;
    } catch {
      const holder = Number(fs.readFileSync(path.join(lock, "pid"), { encoding: "utf8", flag: "a+" }) || 0);
      if (holder > 0 && !isRunning(holder)) fs.rmSync(lock, { recursive: true, force: true });
      await sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** The e2e lab: attached when up, else started (once per test run, whichever worker asks first). */
export function useLab(): Promise<Lab> {
  started ??= withLabLock(async () => attachLab(e2eLabSpec().dir) ?? (await startLab(e2eLabSpec())));
  return started;
}
