/**
 * Bench: etcd on loopback hosts over real SSH.
 *  1. bring-up of a 3-member mTLS cluster: our generated scripts (driven in the component's order)
 *     vs a plain hand-written ssh script doing the same steps;
 *  2. snapshot + restore into a new cluster: our scripts vs raw etcdctl / etcdutl.
 * Prints both ratios (ours / plain). Run: npx ts-node --transpile-only -P tsconfig.json bench/etcd-hosts.ts
 */
import * as fs from "fs";
import * as path from "path";
import { pkiBundle } from "../lib/etcd/hosts/pkiFiles";
import { planEtcdHosts } from "../lib/etcd/hosts/plan";
import { shq } from "../lib/hosts/shell";
import { ResolvedHost } from "../lib/hosts/spec";
import { PlanDriver } from "../test/support/hosts/driver";
import { EtcdHostsFixture, HOST_ETCD_DIR, startEtcdHostsFixture } from "../test/support/hosts/etcdFixture";
import { killScriptProcesses } from "../test/support/hosts/testbed";

const NAMES = ["m1", "m2", "m3"];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Stops everything on the hosts and wipes etcd state, so every round starts cold. */
function wipe(fx: EtcdHostsFixture): void {
  for (const host of fx.bed.hosts) {
    killScriptProcesses(host.root);
    for (const dir of ["var/lib", "etc/etcd", "run/pulumi-karmada", "var/backups"]) {
      fs.rmSync(path.join(host.root, dir), { recursive: true, force: true });
    }
  }
}

async function must(run: Promise<{ code: number; stderr: string }>): Promise<void> {
  const r = await run;
  if (r.code !== 0) throw new Error(r.stderr);
}

/** The hand-written baseline: certs from stdin via tar, flags on the command line, nohup. */
function plainStart(
  fx: EtcdHostsFixture,
  host: ResolvedHost,
  cluster: string,
  state: string,
  restoreFrom?: string,
): string {
  const bin = path.join(host.root, HOST_ETCD_DIR);
  const pki = path.join(host.root, "etc/etcd/pki");
  const data = path.join(host.root, "var/lib/etcd");
  const run = path.join(host.root, "run/pulumi-karmada/plain");
  const snapTool = fx.etcd.hasEtcdutl ? `${bin}/etcdutl` : `ETCDCTL_API=3 ${bin}/etcdctl`;
  const restore = restoreFrom
    ? `${snapTool} snapshot restore ${restoreFrom} --name ${host.name} --initial-cluster ${cluster} --initial-cluster-token plain --initial-advertise-peer-urls https://${host.address}:2380 --data-dir ${data} >/dev/null 2>&1`
    : "";
  return `set -e
mkdir -p ${pki} ${run} && tar -xf - -C ${pki}
${restore}
setsid nohup ${bin}/etcd --name ${host.name} --data-dir ${data} \\
  --listen-client-urls https://${host.address}:2379 --advertise-client-urls https://${host.address}:2379 \\
  --listen-peer-urls https://${host.address}:2380 --initial-advertise-peer-urls https://${host.address}:2380 \\
  --initial-cluster ${cluster} --initial-cluster-state ${state} --initial-cluster-token plain \\
  --cert-file ${pki}/server.crt --key-file ${pki}/server.key --trusted-ca-file ${pki}/ca.crt --client-cert-auth \\
  --peer-cert-file ${pki}/peer.crt --peer-key-file ${pki}/peer.key --peer-trusted-ca-file ${pki}/ca.crt --peer-client-cert-auth \\
  </dev/null >${run}/etcd.log 2>&1 &
echo $! > ${run}/child.pid`;
}

function plainHealth(host: ResolvedHost): string {
  const bin = path.join(host.root, HOST_ETCD_DIR);
  const pki = path.join(host.root, "etc/etcd/pki");
  return `for i in $(seq 1 120); do ETCDCTL_API=3 ${bin}/etcdctl --endpoints=https://${host.address}:2379 --cacert ${pki}/ca.crt --cert ${pki}/client.crt --key ${pki}/client.key endpoint health --cluster >/dev/null 2>&1 && exit 0; sleep 0.5; done; exit 1`;
}

function tarOfPki(fx: EtcdHostsFixture, name: string): string {
  const dir = path.join(fx.bed.dir, "plain-pki", name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(fx.pki.members[name]))
    fs.writeFileSync(path.join(dir, file), content, { mode: 0o600 });
  return dir;
}

async function main(): Promise<void> {
  const fx = await startEtcdHostsFixture({ prefix: "127.0.4.", count: 3 });
  try {
    const settings = fx.settings(NAMES);
    const cluster = NAMES.map((n, i) => `${n}=https://${settings.members[i].address}:2380`).join(",");
    const { execFileSync } = await import("child_process");
    const tarFor = (name: string) =>
      execFileSync("tar", ["-cf", "-", "-C", tarOfPki(fx, name), "."]).toString("latin1");
    // ssh stdin must carry the binary tar intact: send base64 and decode on the host.
    const plainRun = (host: ResolvedHost, script: string, stdin = "") =>
      fx.driver.run(
        host,
        `base64 -d | bash -c ${shq(script)}`,
        Buffer.from(stdin, "latin1").toString("base64"),
      );

    const ours: number[] = [];
    const plain: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      wipe(fx);
      const driver = new PlanDriver((c) => pkiBundle(fx.pki.members[c.host]));
      const plan = planEtcdHosts(fx.settings(NAMES, { backup: { enabled: false } }), {
        token: `bench-${round}`,
        bootstrapMembers: NAMES,
      });
      ours.push(await timed(async () => void (await driver.apply(settings.members, plan))));
      wipe(fx);
      plain.push(
        await timed(async () => {
          for (const host of settings.members)
            await must(plainRun(host, plainStart(fx, host, cluster, "new"), tarFor(host.name)));
          await must(plainRun(settings.members[0], plainHealth(settings.members[0])));
        }),
      );
    }
    const bringUp = median(ours) / median(plain);

    // Snapshot + restore.
    const oursR: number[] = [];
    const plainR: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      wipe(fx);
      const driver = new PlanDriver((c) => pkiBundle(fx.pki.members[c.host]));
      const base = { backup: { enabled: true, retain: 1 }, deleteData: true };
      await driver.apply(
        settings.members,
        planEtcdHosts(fx.settings(NAMES, base), { token: `r-${round}`, bootstrapMembers: NAMES }),
      );
      await fx.client(NAMES).putMany("k/", 2000);
      const snapshotPath = "/var/backups/restore.db";
      oursR.push(
        await timed(async () => {
          const plan = planEtcdHosts(fx.settings(NAMES, base), {
            token: `r-${round}`,
            bootstrapMembers: NAMES,
          });
          await must(fx.driver.run(settings.members[0], plan.snapshot.script, ""));
          await driver.destroy();
          const dir = path.join(fx.bed.hosts[0].root, "var/backups/etcd");
          const latest = fs.readFileSync(path.join(dir, "latest"), "utf8").trim();
          spread(fx, path.join(dir, latest), snapshotPath);
          const restore = planEtcdHosts(
            fx.settings(NAMES, { ...base, backup: { enabled: false }, restoreFrom: { path: snapshotPath } }),
            { token: `r2-${round}`, bootstrapMembers: NAMES },
          );
          await driver.apply(settings.members, restore);
        }),
      );
      if ((await fx.client(NAMES).count("k/")) !== 2000) throw new Error("our restore lost keys");
      // Plain: etcdctl snapshot save, kill, etcdutl restore + start.
      const m1 = settings.members[0];
      const bin = path.join(m1.root, HOST_ETCD_DIR);
      const pki = path.join(m1.root, "etc/etcd/pki");
      const snap = path.join(m1.root, "var/backups/plain.db");
      plainR.push(
        await timed(async () => {
          await must(
            fx.driver.run(
              m1,
              `ETCDCTL_API=3 ${bin}/etcdctl --endpoints=https://${m1.address}:2379 --cacert ${pki}/ca.crt --cert ${pki}/client.crt --key ${pki}/client.key snapshot save ${snap} >/dev/null`,
              "",
            ),
          );
          wipeProcessesAndData(fx);
          spread(fx, snap, snapshotPath);
          for (const host of settings.members)
            await must(
              plainRun(
                host,
                plainStart(fx, host, cluster, "new", path.join(host.root, snapshotPath)),
                tarFor(host.name),
              ),
            );
          await must(plainRun(m1, plainHealth(m1)));
        }),
      );
      if ((await fx.client(NAMES).count("k/")) !== 2000) throw new Error("plain restore lost keys");
    }
    const restore = median(oursR) / median(plainR);
    console.log(`etcd ${fx.etcd.version} (${fx.etcd.origin}), ${ROUNDS} rounds, medians:`);
    console.log(
      `bring-up 3 members:   ours ${median(ours).toFixed(0)} ms, plain ssh ${median(plain).toFixed(0)} ms, ratio ${bringUp.toFixed(2)}`,
    );
    console.log(
      `snapshot + restore:   ours ${median(oursR).toFixed(0)} ms, raw etcdctl/etcdutl ${median(plainR).toFixed(0)} ms, ratio ${restore.toFixed(2)}`,
    );
  } finally {
    wipe(fx);
    await fx.stop();
  }
}

/** Copies a snapshot to the same path in every host root. */
function spread(fx: EtcdHostsFixture, source: string, target: string): void {
  for (const h of fx.bed.hosts) {
    fs.mkdirSync(path.dirname(path.join(h.root, target)), { recursive: true });
    fs.copyFileSync(source, path.join(h.root, target));
  }
}

/** Kills etcd on every host and removes data dirs (the snapshot stays in var/backups). */
function wipeProcessesAndData(fx: EtcdHostsFixture): void {
  for (const host of fx.bed.hosts) {
    killScriptProcesses(host.root);
    fs.rmSync(path.join(host.root, "var/lib"), { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
