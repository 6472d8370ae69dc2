/**
 * globalSetup and globalTeardown of the e2e project: the e2e lab (devkit/lab/useLab.ts) is removed before
 * the run, so every run starts on fresh clusters, and after it, so a run leaves nothing running (every
 * process, mount, cgroup and namespace of it). `PULUMI_KARMADA_KEEP_LAB=1` keeps a running lab across
 * runs (iterating on one suite locally); CI never sets it.
 */
import { stopLab } from "../../devkit/lab/lab";
import { e2eLabSpec } from "../../devkit/lab/labs";
import { planLab } from "../../devkit/lab/plan";

export const KEEP_LAB_ENV = "PULUMI_KARMADA_KEEP_LAB";

export default async function removeE2eLab(): Promise<void> {
  if (process.env[KEEP_LAB_ENV] === "1") return;
  await stopLab(planLab(e2eLabSpec()));
}
