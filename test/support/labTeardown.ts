/**
 * globalSetup and globalTeardown of the e2e project: the e2e lab (devkit/lab/useLab.ts) is removed before
 * the run, so every run starts on fresh clusters, and after it, so a run leaves nothing running (every
 * process, mount, cgroup and namespace of it). A run holds the e2e lab's run lock from its setup to its
 * teardown: a second e2e run on the machine waits for the first to end instead of removing the lab under
 * it. `PULUMI_KARMADA_KEEP_LAB=1` neither takes the lock nor touches the lab: it keeps a running lab across
 * runs (iterating on one suite locally), and lets a suite that needs no lab run beside another run; CI
 * never sets it.
 */
import * as fs from "fs";
import * as path from "path";
import { stopLab } from "../../devkit/lab/lab";
import { e2eLabSpec } from "../../devkit/lab/labs";
import { planLab } from "../../devkit/lab/plan";
import { acquireLock } from "../../devkit/lock";
import { isRunning } from "../../devkit/processes";

export const KEEP_LAB_ENV = "PULUMI_KARMADA_KEEP_LAB";

/** The lock an e2e run holds from its setup to its teardown (the lab's start lock is another). */
const runLock = () => `${e2eLabSpec().dir}.run`;

/** The pid holding the run lock, 0 for none. */
function runLockHolder(): number {
  try {
    return Number(fs.readFileSync(path.join(runLock(), "pid"), "utf8")) || 0;
  } catch {
    return 0;
  }
}

export default async function e2eRunBoundary(): Promise<void> {
  if (process.env[KEEP_LAB_ENV] === "1") return;
  const holder = runLockHolder();
  if (holder === process.pid) {
    // the teardown of this run (jest runs both in its own process)
    await stopLab(planLab(e2eLabSpec()));
    fs.rmSync(runLock(), { recursive: true, force: true });
    return;
  }
  if (holder > 0 && isRunning(holder)) {
    process.stderr.write(
      `\n[e2e] another e2e run (pid ${holder}) is using the e2e lab: waiting for it to end ` +
        `(a suite that needs no lab runs beside it with ${KEEP_LAB_ENV}=1)\n`,
    );
  }
  await acquireLock(runLock());
  await stopLab(planLab(e2eLabSpec()));
}
