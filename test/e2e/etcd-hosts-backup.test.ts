/**
 * Backup and restore over real SSH with real etcd: on-demand snapshots (checksum, integrity, latest
 * pointer, retention), every member destroyed, a NEW cluster restored from the snapshot (served by a
 * local mirror URL) with all 10,000 keys.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { EtcdHostsFixture, startEtcdHostsFixture } from "../support/hosts/etcdFixture";
import { FileServer, serveDirectory } from "../support/hosts/fileServer";

jest.setTimeout(900_000);

const KEYS = 10_000;
const NAMES = ["m1", "m2", "m3"];
const backup = { retain: 2, intervalMinutes: 1440 };

let fx: EtcdHostsFixture;
let mirror: FileServer | undefined;

beforeAll(async () => {
  fx = await startEtcdHostsFixture({ prefix: "127.0.3.", count: 3 });
});

afterAll(async () => {
  await mirror?.close();
  await fx?.driver.destroy().catch((e) => console.error(e));
  await fx?.stop();
});

const sha256 = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

test("snapshot → all members destroyed → restore into a fresh cluster keeps 10,000/10,000 keys", async () => {
  const { plan } = await fx.deploy(
    NAMES,
    { token: "before-restore", bootstrapMembers: NAMES },
    { backup, deleteData: true },
  );
  const client = fx.client(NAMES);
  await client.putMany("k/", KEYS);
  expect(await client.count("k/")).toBe(KEYS);
  const oldIds = (await client.members()).map((m) => m.ID).sort();

  // On-demand snapshots, three times: retention keeps the newest two.
  const m1 = fx.settings(NAMES).members[0];
  for (let i = 0; i < 3; i++) {
    const run = await fx.driver.run(m1, plan.snapshot.script, "");
    if (run.code !== 0) throw new Error(run.stderr);
    expect(run.stdout).toMatch(/snapshot .*etcd-snapshot-.*\.db sha256 [0-9a-f]{64}/);
    await new Promise((r) => setTimeout(r, 1100)); // names carry the second
  }
  const dir = path.join(fx.bed.hosts[0].root, "var/backups/etcd");
  const snapshots = fs
    .readdirSync(dir)
    .filter((f) => /^etcd-snapshot-.*\.db$/.test(f))
    .sort();
  expect(snapshots).toHaveLength(backup.retain);
  const latest = fs.readFileSync(path.join(dir, "latest"), "utf8").trim();
  expect(latest).toBe(snapshots[snapshots.length - 1]);
  const recorded = fs.readFileSync(path.join(dir, `${latest}.sha256`), "utf8").split(/\s+/)[0];
  expect(recorded).toBe(sha256(path.join(dir, latest)));
  // The periodic job is installed and running under the supervisor.
  expect(
    fs.existsSync(path.join(fx.bed.hosts[0].root, "run/pulumi-karmada/pk-etcd-backup/supervisor.pid")),
  ).toBe(true);

  // Destroy everything: stop every member, move data aside (deleteData), the snapshot job goes too.
  const snapshotCopy = path.join(fx.bed.dir, "mirror");
  fs.mkdirSync(snapshotCopy);
  fs.copyFileSync(path.join(dir, latest), path.join(snapshotCopy, "etcd.db"));
  await fx.driver.destroy();
  for (const host of fx.bed.hosts) {
    expect(fs.existsSync(path.join(host.root, "var/lib/etcd"))).toBe(false);
    expect(fs.readdirSync(path.join(host.root, "var/lib")).some((d) => d.startsWith("etcd.deleted-"))).toBe(
      true,
    );
  }
  await expect(client.count("k/")).rejects.toThrow();

  // Restore from a mirror URL into a new cluster.
  mirror = await serveDirectory(snapshotCopy);
  const restoreFrom = { url: `${mirror.url}/etcd.db`, sha256: sha256(path.join(snapshotCopy, "etcd.db")) };
  const { ran } = await fx.deploy(
    NAMES,
    { token: "after-restore", bootstrapMembers: NAMES },
    { backup, restoreFrom },
  );
  expect(ran).toContain("cluster");
  expect(await client.count("k/")).toBe(KEYS);
  expect(await client.get("k/09999")).toBe("value-9999");
  const newIds = (await client.members()).map((m) => m.ID).sort();
  expect(newIds).not.toEqual(oldIds);
  // Applying again with restoreFrom still set changes nothing: members already have data.
  expect(
    (await fx.deploy(NAMES, { token: "after-restore", bootstrapMembers: NAMES }, { backup, restoreFrom }))
      .ran,
  ).toEqual([]);
  await client.put("after-restore", "yes");
  expect(await client.get("after-restore")).toBe("yes");
});

test("a wrong restore checksum is refused, naming host and step", async () => {
  await fx.driver.destroy();
  const restoreFrom = { path: "/nonexistent/etcd.db" };
  for (const host of fx.bed.hosts)
    fs.rmSync(path.join(host.root, "var/lib/etcd"), { recursive: true, force: true });
  await expect(
    fx.deploy(NAMES, { token: "bad-restore", bootstrapMembers: NAMES }, { restoreFrom }),
  ).rejects.toThrow(
    "pulumi-karmada: m1: restore-snapshot: snapshot " +
      path.join(fx.bed.hosts[0].root, "nonexistent/etcd.db") +
      " does not exist",
  );
});
