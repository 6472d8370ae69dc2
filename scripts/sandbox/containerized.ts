/**
 * The containerized estate (`npm run start:containerized`, `npm run stop:containerized`): the sandbox lab
 * (devkit/lab: a host cluster of three real nodes and two one-node members, a registry holding every image
 * the test bed built), then `pulumi up` of the stacks program's `sandbox` stack (Pulumi.sandbox.yaml) by
 * the real engine, then a wait until both members are Ready, the sample workload applied to Karmada and
 * its pods Running in the members, and copy-paste commands to use it.
 *
 *   ts-node --transpile-only scripts/sandbox/containerized.ts up [--preview]
 *   ts-node --transpile-only scripts/sandbox/containerized.ts down
 *
 * Pulumi's state and the project copy live in ${PULUMI_KARMADA_CACHE:-~/.cache/pulumi-karmada}/containerized-sandbox;
 * the lab in <cache>/labs/sandbox.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { cacheRoot } from "../../lib/cache/entries";
import { apiGet, credentialsFromKubeconfig, waitFor } from "../../devkit/kubeClient";
import { Lab, ensureLab, inspectLab, labStartAction, stopLab } from "../../devkit/lab/lab";
import { sandboxLabSpec } from "../../devkit/lab/labs";
import { clusterFiles } from "../../devkit/lab/controlPlane";
import { testbedCrdBundle } from "../../devkit/lab/estate";
import { clusterOf, planLab } from "../../devkit/lab/plan";
import { REPO_ROOT, requireBinary, testbedEnv } from "../../devkit/testbed";
import { readyClusters } from "../../devkit/sandbox/estate";
import { runSandboxCommand } from "./command";
import { discardSandboxState, LocalStack, prepareSandboxStack } from "../../devkit/sandbox/stack";

/** The stack's name; its settings are the repository's Pulumi.sandbox.yaml. */
export const SANDBOX_STACK = "sandbox";
export const SANDBOX_STACK_FILE = path.join(REPO_ROOT, "Pulumi.sandbox.yaml");
/** The sample workload (a Deployment and its PropagationPolicy to both members). */
export const CONTAINERIZED_SAMPLE = path.join(REPO_ROOT, "examples", "containerized-estate", "web.yaml");
const PASSPHRASE = "pulumi-karmada-containerized-sandbox";

const log = (message: string) => console.error(`[containerized] ${message}`);

/** How long `npm run stop:containerized` gives `pulumi destroy` before it removes the sandbox regardless. */
const DESTROY_TIMEOUT_MS = 300_000;

/** Pulumi's state, the project copy and the admin kubeconfig of the sandbox. */
export function containerizedSandboxDir(): string {
  return path.join(cacheRoot(), "containerized-sandbox");
}

/** The sandbox stack on `lab`: Pulumi.sandbox.yaml, the CRD bundle, the lab's kubeconfigs as secrets. */
function prepareStack(dir: string, lab: Lab): LocalStack {
  const config = parse(fs.readFileSync(SANDBOX_STACK_FILE, "utf8")).config as Record<string, unknown>;
  const members = (config["karmada:members"] as { clusterName: string }[] | undefined) ?? [];
  return prepareSandboxStack(dir, {
    name: SANDBOX_STACK,
    settingsSource: SANDBOX_STACK_FILE,
    config: { ...config, "karmada:crds": { kind: "path", path: testbedCrdBundle() } },
    secrets: {
      "karmada:hostKubeconfig": lab.kubeconfig("host"),
      ...Object.fromEntries(
        members.map((m) => [`karmada:memberKubeconfigs.${m.clusterName}`, lab.kubeconfig(m.clusterName)]),
      ),
    },
    passphrase: PASSPHRASE,
  });
}

/** Pods of `app` in a member, as `name phase ready`. */
function memberPods(lab: Lab, member: string, app: string): string[] {
  const out = execFileSync(
    requireBinary("kubectl"),
    [
      "--kubeconfig",
      clusterFiles(clusterOf(lab.plan, member)).kubeconfig("admin"),
      "get",
      "pods",
      "-n",
      "default",
      "-l",
      `app=${app}`,
      "-o",
      'jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.status.containerStatuses[0].ready}{"\\n"}{end}',
    ],
    { encoding: "utf8", env: testbedEnv().env },
  );
  return out.split("\n").filter(Boolean);
}

async function up(preview: boolean): Promise<void> {
  const spec = sandboxLabSpec();
  const dir = containerizedSandboxDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { lab } = await ensureLab(spec, {
    log,
    // the estate's state describes the old lab's disks: an `up` must never run against a world that lost them
    beforeNew: (reason) => {
      if (discardSandboxState(dir, SANDBOX_STACK, [path.join(dir, "karmada.kubeconfig")]))
        log(
          `the lab is made anew (${reason}): the stack's state of the estate on the old lab is discarded with it`,
        );
      log(`starting the sandbox lab: 3 host nodes, 2 member nodes, the registry (${spec.dir})`);
    },
  });
  const stack = prepareStack(dir, lab);
  if (preview) {
    stack.run(["preview", "--diff", "--stack", SANDBOX_STACK]);
    return;
  }
  log(`pulumi up (stack ${SANDBOX_STACK}, settings ${SANDBOX_STACK_FILE})`);
  stack.run(["up", "--yes", "--stack", SANDBOX_STACK]);
  const kubeconfigFile = path.join(dir, "karmada.kubeconfig");
  fs.writeFileSync(
    kubeconfigFile,
    stack.run(["stack", "output", "--show-secrets", "adminKubeconfig"], { quiet: true }),
    { mode: 0o600 },
  );
  const karmada = credentialsFromKubeconfig(fs.readFileSync(kubeconfigFile, "utf8"));
  log("waiting until both members are Ready");
  await waitFor(
    "member1 and member2 Ready",
    async () => (await readyClusters(karmada)).join() === "member1,member2",
    300_000,
    2000,
  );

  const karmadactl = requireBinary("karmadactl");
  log(`applying the sample (${path.relative(REPO_ROOT, CONTAINERIZED_SAMPLE)}) to Karmada`);
  execFileSync(karmadactl, ["--kubeconfig", kubeconfigFile, "apply", "-f", CONTAINERIZED_SAMPLE], {
    stdio: "inherit",
  });
  await waitFor(
    "the sample's pods Running and ready in both members",
    async () =>
      ["member1", "member2"].every((m) => {
        const pods = memberPods(lab!, m, "web");
        return pods.length === 2 && pods.every((p) => p.endsWith(" Running true"));
      }),
    300_000,
    2000,
  );
  const deployment = await apiGet(karmada, "/apis/apps/v1/namespaces/default/deployments/web");
  const kubectl = requireBinary("kubectl");
  const member = (name: string) => clusterFiles(clusterOf(lab!.plan, name)).kubeconfig("admin");
  console.log(`
Karmada is up on real nodes: member1 (push) and member2 (pull) Ready; the sample runs in both:
${["member1", "member2"]
  .map((m) =>
    memberPods(lab!, m, "web")
      .map((p) => `  ${m}: ${p}`)
      .join("\n"),
  )
  .join("\n")}
  Karmada's aggregated status of the sample: ${deployment.status?.readyReplicas ?? 0} ready replicas

  ${karmadactl} --kubeconfig ${kubeconfigFile} get clusters
  ${karmadactl} --kubeconfig ${kubeconfigFile} apply -f ${CONTAINERIZED_SAMPLE}
  ${kubectl} --kubeconfig ${member("member1")} get pods -l app=web -o wide
  ${kubectl} --kubeconfig ${member("member2")} get pods -l app=web -o wide
  # the control plane's pods on the host cluster's three nodes:
  ${kubectl} --kubeconfig ${member("host")} get pods -n karmada-system -o wide

Change Pulumi.sandbox.yaml or the code, then: npm run start:containerized -- --preview (the diff), npm run start:containerized (apply).
Stop and remove everything: npm run stop:containerized`);
}

async function down(): Promise<void> {
  const spec = sandboxLabSpec();
  const dir = containerizedSandboxDir();
  const { start, reason } = labStartAction(spec, inspectLab(spec.dir));
  if (start === "new") log(`no estate to destroy (${reason}): removing the sandbox`);
  else if (fs.existsSync(path.join(dir, "project"))) {
    try {
      // destroy talks to the clusters: boot them again if they were stopped
      const { lab } = await ensureLab(spec, { log });
      const stack = prepareStack(dir, lab);
      const kubeconfigFile = path.join(dir, "karmada.kubeconfig");
      if (fs.existsSync(kubeconfigFile)) {
        execFileSync(
          requireBinary("karmadactl"),
          ["--kubeconfig", kubeconfigFile, "delete", "--ignore-not-found", "-f", CONTAINERIZED_SAMPLE],
          {
            stdio: "inherit",
          },
        );
      }
      await stack.runWithin(["destroy", "--yes", "--stack", SANDBOX_STACK], DESTROY_TIMEOUT_MS);
    } catch (e) {
      // everything below is removed anyway: the state and the lab are local to this machine
      log(`pulumi destroy failed (${(e as Error).message.split("\n")[0]}); removing the sandbox regardless`);
    }
  }
  await stopLab(planLab(spec));
  fs.rmSync(dir, { recursive: true, force: true });
  log("containerized sandbox removed: no process, mount, cgroup, namespace or file of it is left");
}

if (require.main === module) runSandboxCommand("containerized", process.argv.slice(2), up, down);
