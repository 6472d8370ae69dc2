/**
 * `ts-node devkit/lab/cli.ts up|down|status [lab]` — start, stop or show one of the project's labs
 * (devkit/lab/labs.ts; default `e2e`). `up` prints where the clusters' admin kubeconfigs are; `status`
 * prints every cluster's nodes and whether anything of a stopped lab is left on the machine.
 */
import { clusterFiles, adminCredentials } from "./controlPlane";
import { attachLab, labLeftovers, startLab, stopLab } from "./lab";
import { labSpecNamed } from "./labs";
import { machineRunning, onMachine } from "./machine";
import { nodeReady } from "./node";
import { planLab } from "./plan";

async function main(): Promise<number> {
  const [command, name = "e2e"] = process.argv.slice(2);
  const spec = labSpecNamed(name);
  const plan = planLab(spec);
  if (command === "up") {
    const started = Date.now();
    const lab = await startLab(spec);
    console.log(
      `lab ${name} up in ${((Date.now() - started) / 1000).toFixed(1)} s; registry ${plan.registry} (${lab.images.length} images)`,
    );
    for (const c of plan.clusters) {
      console.log(
        `  ${c.name}: ${c.server}, ${c.nodes.length} node(s), kubeconfig ${clusterFiles(c).kubeconfig("admin")}`,
      );
    }
    for (const m of plan.machines) {
      console.log(
        `  machine ${m.name}: ssh -i ${lab.machineAccess.privateKeyPath} -o UserKnownHostsFile=${lab.machineAccess.knownHostsPath} root@${m.address}`,
      );
    }
    return 0;
  }
  if (command === "down") {
    await stopLab(plan);
    console.log(`lab ${name} stopped; nothing left`);
    return 0;
  }
  if (command === "status") {
    const lab = attachLab(plan.dir);
    if (!lab) {
      const left = labLeftovers(plan);
      console.log(`lab ${name}: not running${left.length ? `; left behind:\n  ${left.join("\n  ")}` : ""}`);
      return 0;
    }
    console.log(`lab ${name}: up; registry ${plan.registry}`);
    for (const c of plan.clusters) {
      const creds = adminCredentials(c);
      const nodes = await Promise.all(
        c.nodes.map(
          async (n) =>
            `${n.name} ${(await nodeReady(creds, n.name).catch(() => false)) ? "Ready" : "NotReady"}`,
        ),
      );
      console.log(`  ${c.name}: ${c.server}${nodes.length ? `; ${nodes.join(", ")}` : ""}`);
    }
    for (const m of plan.machines) {
      const state = machineRunning(m)
        ? (
            await onMachine(plan, m, "systemctl is-system-running || true", 10_000).catch(() => "unreachable")
          ).trim()
        : "stopped";
      console.log(`  machine ${m.name}: ${m.address}, systemd ${state}`);
    }
    return 0;
  }
  console.error("usage: devkit/lab/cli.ts up|down|status [e2e|sandbox]");
  return 2;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error((e as Error).message);
    process.exit(1);
  },
);
