/**
 * Bench: etcd on loopback hosts (real sshd, real etcd, 127.0.4.x) through `pulumi up` with the real
 * engine (Automation API: CLI, Node.js language host, command/tls/random plugins) vs a plain
 * hand-written ssh script doing the same steps (bench/support/etcdPlain.ts), round by round:
 *  - bring-up of a 3-member mTLS cluster (both issue the same RSA-3072 certificates);
 *  - snapshot + restore into a new cluster, in place (ours: on-demand snapshot, `up` with
 *    restoreFrom.replaceData — certificates kept; plain: etcdctl snapshot save, stop, etcdutl restore,
 *    start);
 *  - 3 → 5 members (ours: `up` with two more hosts; plain: `member add` + start, one at a time).
 * Beside each, the engine floor (bench/support/etcdFloor.ts): the same graph with resources that do nothing.
 * Both programs run compiled to JavaScript, as a user's program runs the published package
 * (bench/support/compiledPrograms.ts).
 * Run: npx ts-node --transpile-only -P tsconfig.json bench/etcd-hosts.ts (BENCH_ROUNDS, default 3).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { REPO_ROOT } from "../devkit/testbed";
import { resolveHosts } from "../lib/hosts/spec";
import { HOST_ETCD_BIN } from "../devkit/hosts/etcdProgram";
import { EtcdInput, EtcdStack, startEtcdStack } from "../devkit/hosts/etcdStack";
import { killScriptProcesses, portOpen } from "../devkit/hosts/testbed";
import { compileBenchPrograms } from "./support/compiledPrograms";
import { FloorStack } from "./support/etcdFloor";
import { floorShape, FloorShape } from "./support/etcdFloorShape";
import { PlainEtcd } from "./support/etcdPlain";
import { runProcess } from "../devkit/hosts/driver";
import { describeKindTimings, EngineStepClock, StepTiming, timingsByKind } from "./support/engineTimings";
import { BenchTarget, figureOf, median, reportFigure, timed } from "./support/figures";

const BENCH = "etcd-hosts";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const THREE = ["m1", "m2", "m3"];
const FIVE = [...THREE, "m4", "m5"];
/** Keys written before a snapshot (and counted after the restore). */
const KEYS = 2000;
/** Where both restores read the snapshot, inside every host root. */
const SNAPSHOT = "/var/backups/restore.db";
const NO_BACKUP = { backup: { enabled: false } };

/** The samples of one phase, one per round. */
interface Samples {
  ours: number[];
  plain: number[];
  floor: number[];
  /** Engine steps of our last run of the phase. */
  steps: readonly StepTiming[];
}

const samples = (): Samples => ({ ours: [], plain: [], floor: [], steps: [] });

/** Operation per resource name in a run (a replacement's several steps count as one `replace`). */
function opsOf(steps: readonly StepTiming[]): Map<string, string> {
  const ops = new Map<string, string>();
  for (const s of steps) {
    const name = s.urn.slice(s.urn.lastIndexOf("::") + 2);
    if (ops.get(name) !== "replace") ops.set(name, s.op.includes("replace") ? "replace" : s.op);
  }
  return ops;
}

/** Everything the rounds share: the stack and its hosts, the plain operator, the floor's stack. */
class Bench {
  private deployed = false;
  private floorDeployed = false;

  private constructor(
    readonly estate: EtcdStack,
    readonly plain: PlainEtcd,
    readonly floor: FloorStack,
  ) {}

  /** Compiles both programs into `compiledDir`, starts the bed and creates both stacks. */
  static async start(compiledDir: string): Promise<Bench> {
    const programs = compileBenchPrograms(compiledDir);
    const estate = await startEtcdStack(
      "etcd-bench",
      { prefix: "127.0.4.", count: FIVE.length },
      programs.etcd,
    );
    try {
      const hosts = resolveHosts(estate.hosts(FIVE), "hosts");
      const plain = new PlainEtcd(hosts, HOST_ETCD_BIN, estate.etcd.hasEtcdutl, estate.engine.dir);
      return new Bench(estate, plain, await FloorStack.create(estate.engine, programs.floor));
    } catch (e) {
      await estate.stop();
      throw e;
    }
  }

  /** Our `up` of `names`, timed, with its engine steps. */
  async up(label: string, names: readonly string[], extra: Partial<EtcdInput> = NO_BACKUP) {
    const clock = new EngineStepClock();
    const { ms } = await timed(() => this.estate.up(label, this.estate.input(names, extra), clock.onEvent));
    this.deployed = true;
    return { ms, steps: clock.steps() };
  }

  /** The floor graph of what our stack holds now (`previous` and `steps`: see floorShape). */
  async shape(previous?: FloorShape, steps: readonly StepTiming[] = []): Promise<FloorShape> {
    const state = await this.estate.stack.exportStack();
    return floorShape(state, this.estate.hosts(FIVE), previous, opsOf(steps));
  }

  async floorUp(shape: FloorShape): Promise<number> {
    const { ms } = await timed(() => this.floor.up(shape));
    this.floorDeployed = true;
    return ms;
  }

  /** Nothing deployed, nothing running, every host root empty but for the etcd release. */
  async reset(): Promise<void> {
    if (this.deployed) await this.estate.destroy("reset: destroy");
    this.deployed = false;
    if (this.floorDeployed) await this.floor.destroy();
    this.floorDeployed = false;
    for (const host of this.estate.bed.hosts) {
      killScriptProcesses(host.root);
      const release = HOST_ETCD_BIN.split("/")[1];
      for (const entry of fs.readdirSync(host.root))
        if (entry !== release) fs.rmSync(path.join(host.root, entry), { recursive: true, force: true });
    }
    for (const host of this.estate.bed.hosts) {
      for (const port of [2379, 2380]) {
        const deadline = Date.now() + 10_000;
        while (await portOpen(host.address, port)) {
          if (Date.now() > deadline) throw new Error(`${host.address}:${port} still open after the reset`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
  }

  /** Copies `file` to SNAPSHOT in every host root of `names`. */
  spread(file: string, names: readonly string[]): void {
    for (const host of this.estate.bed.hosts.filter((h) => names.includes(h.name))) {
      const target = path.join(host.root, SNAPSHOT);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(file, target);
    }
  }

  async expectMembers(names: readonly string[], client: { members(): Promise<any[]>; close(): void }) {
    const members = await client.members();
    client.close();
    const voters = members
      .filter((m) => !m.isLearner)
      .map((m) => m.name)
      .sort();
    if (JSON.stringify(voters) !== JSON.stringify([...names].sort()) || members.length !== names.length)
      throw new Error(`expected voting members ${names.join(",")}, found ${JSON.stringify(members)}`);
  }
}

async function bringUpRound(b: Bench, s: Samples, round: number): Promise<void> {
  await b.reset();
  const ours = await b.up(`bring-up ${round}: ours`, THREE);
  s.ours.push(ours.ms);
  s.steps = ours.steps;
  await b.expectMembers(THREE, await b.estate.client(THREE));
  const shape = await b.shape();

  await b.reset();
  s.plain.push((await timed(() => b.plain.bringUp(THREE))).ms);
  await b.expectMembers(THREE, b.plain.client(THREE));

  await b.reset();
  s.floor.push(await b.floorUp(shape));
}

async function scaleRound(b: Bench, s: Samples, round: number): Promise<void> {
  await b.reset();
  await b.up(`scale ${round}: ours, 3 members`, THREE);
  const three = await b.shape();
  const ours = await b.up(`scale ${round}: ours, 3 → 5`, FIVE);
  s.ours.push(ours.ms);
  s.steps = ours.steps;
  await b.expectMembers(FIVE, await b.estate.client(FIVE));
  const five = await b.shape(three, ours.steps);

  await b.reset();
  await b.plain.bringUp(THREE);
  s.plain.push((await timed(() => b.plain.scaleOut(THREE, ["m4", "m5"]))).ms);
  await b.expectMembers(FIVE, b.plain.client(FIVE));

  await b.reset();
  await b.floorUp(three);
  s.floor.push(await b.floorUp(five));
}

async function restoreRound(b: Bench, s: Samples, round: number): Promise<void> {
  const source = { backup: { enabled: true, retain: 1, intervalMinutes: 1440 } };
  const count = async (client: { count(p: string): Promise<number>; close(): void }) => {
    const n = await client.count("k/");
    client.close();
    if (n !== KEYS) throw new Error(`restored cluster holds ${n} of ${KEYS} keys`);
  };
  await b.reset();
  await b.up(`restore ${round}: ours, source`, THREE, source);
  const before = await b.shape();
  const writer = await b.estate.client(THREE);
  await writer.putMany("k/", KEYS);
  writer.close();
  const { snapshotCommand } = await b.estate.outputs();
  const ours = await timed(async () => {
    const saved = await b.estate.ssh(snapshotCommand!.host, `bash ${snapshotCommand!.path}`);
    if (saved.code !== 0) throw new Error(`our snapshot failed: ${saved.stderr}`);
    const dir = path.join(b.estate.bed.hosts[0].root, "var/backups/etcd");
    b.spread(path.join(dir, fs.readFileSync(path.join(dir, "latest"), "utf8").trim()), THREE);
    const restoreFrom = { path: SNAPSHOT, replaceData: true };
    return b.up(`restore ${round}: ours, in place`, THREE, { ...source, restoreFrom });
  });
  s.ours.push(ours.ms);
  s.steps = ours.result.steps;
  await count(await b.estate.client(THREE));
  const after = await b.shape(before, ours.result.steps);

  await b.reset();
  await b.plain.bringUp(THREE);
  const plainWriter = b.plain.client(THREE);
  await plainWriter.putMany("k/", KEYS);
  plainWriter.close();
  const plain = await timed(async () => {
    b.spread(await b.plain.snapshot(THREE), THREE);
    await b.plain.restore(THREE, SNAPSHOT);
  });
  s.plain.push(plain.ms);
  await count(b.plain.client(THREE));

  await b.reset();
  await b.floorUp(before);
  s.floor.push(await b.floorUp(after));
}

/** Prints a phase's figure (ours vs plain) and the one above the floor (ours − floor vs plain). */
function report(id: string, figure: string, s: Samples, target: BenchTarget, baselineNote: string): void {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const aboveFloor = s.ours.map((o, i) => o - s.floor[i]);
  const floorNote =
    `engine floor (the same graph doing nothing) ${seconds(median(s.floor))}, ` +
    `ours above it ${seconds(median(aboveFloor))}`;
  reportFigure(
    figureOf({
      bench: BENCH,
      id: `${BENCH}.${id}`,
      figure,
      ours: s.ours,
      baselineLabel: "plain ssh script",
      baseline: s.plain,
      target,
      note: `${baselineNote}; ${floorNote}`,
    }),
  );
  reportFigure(
    figureOf({
      bench: BENCH,
      id: `${BENCH}.${id}.above-floor`,
      figure: `${figure}, ours minus the engine floor`,
      ours: aboveFloor,
      baselineLabel: "plain ssh script",
      baseline: s.plain,
      target,
      note: `what our scripts, certificates and program cost beyond an up of the same resources doing nothing (${seconds(median(s.floor))})`,
    }),
  );
  console.log(
    `engine steps of our last run (most expensive kinds):\n${describeKindTimings(timingsByKind(s.steps), 10)}`,
  );
}

/**
 * Milliseconds a fresh Node.js takes to load `modules` (compiled JavaScript, as both programs run),
 * after @pulumi/pulumi, which every program loads first.
 */
async function loadTime(modules: readonly string[]): Promise<number> {
  const script = [
    `const load = (m) => require(require.resolve(m, { paths: [${JSON.stringify(REPO_ROOT)}] }));`,
    `load("@pulumi/pulumi");`,
    `const started = process.hrtime.bigint();`,
    ...modules.map((m) => `load(${JSON.stringify(m)});`),
    `console.log(Number(process.hrtime.bigint() - started) / 1e6);`,
  ].join("\n");
  const r = await runProcess(process.execPath, ["-e", script], "", 120_000);
  if (r.code !== 0) throw new Error(`loading ${modules.join(", ")} failed: ${r.stderr}`);
  return Number(r.stdout.trim());
}

async function main(): Promise<void> {
  const compiledDir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-etcd-bench-js-"));
  const bench = await Bench.start(compiledDir).catch((e) => {
    fs.rmSync(compiledDir, { recursive: true, force: true });
    throw e;
  });
  const bringUp = samples();
  const scale = samples();
  const restore = samples();
  try {
    // the first engine run reads the CLI, plugins and modules from disk: not a round
    await bench.up("warm-up: ours", THREE);
    const warm = await bench.shape();
    await bench.reset();
    await bench.floorUp(warm);
    const program = path.join(compiledDir, "js", "components", "etcdCluster.js");
    const floorModules = ["@pulumi/command", "@pulumi/random", "@pulumi/tls"];
    const loads = { ours: [] as number[], floor: [] as number[] };
    for (let i = 0; i < 3; i++) {
      loads.ours.push(await loadTime([program]));
      loads.floor.push(await loadTime(floorModules));
    }
    for (let round = 0; round < ROUNDS; round++) {
      await bringUpRound(bench, bringUp, round);
      await scaleRound(bench, scale, round);
      await restoreRound(bench, restore, round);
    }
    await bench.reset();
    const etcd = bench.estate.etcd;
    console.log(`\netcd ${etcd.version} (${etcd.origin}), ${ROUNDS} rounds, 127.0.4.x, supervisor runner`);
    console.log(
      `program load, compiled JavaScript (median of 3 fresh processes): ours (EtcdCluster) ` +
        `${(median(loads.ours) / 1000).toFixed(2)} s, the floor program's SDKs ${(median(loads.floor) / 1000).toFixed(2)} s`,
    );
    const certs = "plain issues the same RSA-3072 certificates with openssl";
    report(
      "bring-up",
      "etcd on hosts: bring-up of 3 mTLS members",
      bringUp,
      { kind: "ratio", max: 1.3 },
      certs,
    );
    report(
      "snapshot-restore",
      "etcd on hosts: snapshot + restore into a new cluster",
      restore,
      { kind: "ratio", max: 1.15 },
      "both keep their certificates: ours is an on-demand snapshot and an `up` with restoreFrom.replaceData, plain stops, restores and starts each member",
    );
    report(
      "scale-3-5",
      "etcd on hosts: 3 → 5 members",
      scale,
      { kind: "ratio", max: 1.3 },
      `${certs} (a server/peer pair covering 5 members) and runs member add + start one at a time`,
    );
  } finally {
    await bench.reset().catch((e) => console.error(`reset failed: ${e}`));
    bench.plain.close();
    await bench.estate.stop();
    fs.rmSync(compiledDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
