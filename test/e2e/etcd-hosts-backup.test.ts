/**
 * Backup and restore of etcd on hosts under the real `pulumi up` / `destroy`: on-demand snapshots
 * (checksum, integrity, latest pointer, retention) with 10,000 keys, the running cluster rolled back in
 * place (`restoreFrom.replaceData`: certificates kept, old data moved aside), `destroy` keeping every
 * data dir (deleteData unset) and the next `up` resuming on it, a restore with a wrong checksum refused, then a NEW cluster restored by `up`
 * from the snapshot (served by a local mirror URL) with 10,000/10,000 keys, `restoreFrom` dropped
 * without restarting anything, and a `destroy` with deleteData moving the data aside, never erasing it.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { e2eTier } from "../../devkit/engine/tier";
import { EtcdStack, startEtcdStack } from "../../devkit/hosts/etcdStack";
import { FileServer, serveDirectory } from "../../devkit/hosts/fileServer";

jest.setTimeout(900_000);

const KEYS = 10_000;
const THREE = ["m1", "m2", "m3"];
const backup = { retain: 2, intervalMinutes: 1440 };

const tier = e2eTier("etcd on hosts: backup and restore (test/e2e/etcd-hosts-backup.test.ts)", {
  binaries: ["etcd", "pulumi", "pulumi-language-nodejs"],
  plugins: ["command", "tls", "random"],
});

const sha256 = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

tier.describe("etcd on hosts: backup and restore", () => {
  let estate: EtcdStack;
  let mirror: FileServer | undefined;
  let oldIds: string[];
  /** The members destroy left with their data. */
  let keptIds: string[];
  const root = (name: string) => estate.bed.hosts.find((h) => h.name === name)!.root;
  const backupDir = () => path.join(root("m1"), "var/backups/etcd");
  const snapshotCopy = () => path.join(estate.bed.dir, "mirror");

  beforeAll(async () => {
    estate = await startEtcdStack("etcd-backup", { prefix: "127.0.3.", count: 3 });
    await estate.up("up: 3 members", estate.input(THREE, { backup }));
  });

  afterAll(async () => {
    if (estate) console.log(`engine runs (s): ${JSON.stringify(estate.timings)}`);
    await mirror?.close();
    await estate?.stop();
  });

  test("on-demand snapshots: checksum, integrity, latest pointer, retention; the periodic job runs", async () => {
    const client = await estate.client(THREE);
    await client.putMany("k/", KEYS);
    expect(await client.count("k/")).toBe(KEYS);
    oldIds = (await client.members()).map((m) => m.ID).sort();
    const { snapshotCommand } = await estate.outputs();
    expect(snapshotCommand).toEqual({
      host: "m1",
      path: path.join(root("m1"), "usr/local/lib/pulumi-karmada/etcd-backup"),
    });
    // three snapshots: retention keeps the newest two
    for (let i = 0; i < 3; i++) {
      const run = await estate.ssh(snapshotCommand!.host, `bash ${snapshotCommand!.path}`);
      if (run.code !== 0) throw new Error(run.stderr);
      expect(run.stdout).toMatch(/snapshot .*etcd-snapshot-.*\.db sha256 [0-9a-f]{64}/);
      await new Promise((r) => setTimeout(r, 1100)); // names carry the second
    }
    const snapshots = fs
      .readdirSync(backupDir())
      .filter((f) => /^etcd-snapshot-.*\.db$/.test(f))
      .sort();
    expect(snapshots).toHaveLength(backup.retain);
    const latest = fs.readFileSync(path.join(backupDir(), "latest"), "utf8").trim();
    expect(latest).toBe(snapshots[snapshots.length - 1]);
    const recorded = fs.readFileSync(path.join(backupDir(), `${latest}.sha256`), "utf8").split(/\s+/)[0];
    expect(recorded).toBe(sha256(path.join(backupDir(), latest)));
    // the periodic job is installed and running under the supervisor
    expect(fs.existsSync(path.join(root("m1"), "run/pulumi-karmada/pk-etcd-backup/supervisor.pid"))).toBe(
      true,
    );
    // what a restore elsewhere would fetch: the latest snapshot on a mirror
    fs.mkdirSync(snapshotCopy());
    fs.copyFileSync(path.join(backupDir(), latest), path.join(snapshotCopy(), "etcd.db"));
  });

  test("a running cluster rolled back in place: snapshot's keys only, new members, same certificates, old data kept", async () => {
    const pki = (name: string) =>
      ["ca.crt", "server.crt", "peer.crt"].map((f) => sha256(path.join(root(name), "etc/etcd/pki", f)));
    const pkiBefore = THREE.map(pki);
    const caBefore = (await estate.outputs()).caCertPem;
    const writer = await estate.client(THREE);
    await writer.put("after-snapshot", "lost by the rollback");
    const idsBefore = (await writer.members()).map((m) => m.ID).sort();
    mirror = await serveDirectory(snapshotCopy());
    const restoreFrom = {
      url: `${mirror.url}/etcd.db`,
      sha256: sha256(path.join(snapshotCopy(), "etcd.db")),
      replaceData: true,
    };
    const result = await estate.up("up: restore in place", estate.input(THREE, { backup, restoreFrom }));
    // a new cluster record (token) replaces the old, and each host checks the snapshot first; every
    // certificate and key stays as it was
    expect(result.summary.resourceChanges).toMatchObject({ create: 1 + THREE.length, delete: 1 });
    expect(result.summary.resourceChanges?.replace ?? 0).toBe(0);
    expect(THREE.map(pki)).toEqual(pkiBefore);
    expect((await estate.outputs()).caCertPem).toBe(caBefore);
    const client = await estate.client(THREE);
    expect(await client.count("k/")).toBe(KEYS);
    expect(await client.get("after-snapshot")).toBeUndefined();
    const ids = (await client.members()).map((m) => m.ID).sort();
    expect(ids).toHaveLength(3);
    expect(ids.filter((id) => idsBefore.includes(id))).toEqual([]);
    for (const name of THREE) {
      const lib = path.join(root(name), "var/lib");
      const aside = fs.readdirSync(lib).filter((d) => d.startsWith("etcd.before-restore-"));
      expect(aside).toHaveLength(1);
      expect(fs.existsSync(path.join(lib, aside[0], "member/wal"))).toBe(true);
    }
    // a further `up` with restoreFrom still set restores nothing again
    await client.put("after-restore-in-place", "kept");
    const again = await estate.up(
      "up: restore in place, again",
      estate.input(THREE, { backup, restoreFrom }),
    );
    expect(again.summary.resourceChanges).toEqual({ same: again.summary.resourceChanges?.same });
    expect(await client.get("after-restore-in-place")).toBe("kept");
  });

  test("destroy stops every member and the snapshot job and keeps every data dir (deleteData unset)", async () => {
    const client = await estate.client(THREE);
    keptIds = (await client.members()).map((m) => m.ID).sort();
    await estate.destroy("destroy (data kept)");
    for (const name of THREE) {
      expect(fs.existsSync(path.join(root(name), "var/lib/etcd/member/wal"))).toBe(true);
      expect(fs.existsSync(path.join(root(name), "run/pulumi-karmada/pk-etcd/supervisor.pid"))).toBe(false);
    }
    expect(fs.existsSync(path.join(root("m1"), "run/pulumi-karmada/pk-etcd-backup/supervisor.pid"))).toBe(
      false,
    );
    expect(fs.readdirSync(backupDir()).filter((f) => f.endsWith(".db"))).toHaveLength(backup.retain);
    await expect(client.count("k/")).rejects.toThrow();
  });

  test("`up` after that destroy resumes on the kept data: the same members, 10,000/10,000 keys and the later writes", async () => {
    // a new certificate authority, cluster record and token are issued (destroy deleted them); the members'
    // data decides who they are: each host's data dir is started as it is
    await estate.up("up: after destroy, on the kept data", estate.input(THREE, { backup }));
    const client = await estate.client(THREE);
    expect(await client.count("k/")).toBe(KEYS);
    expect(await client.get("after-restore-in-place")).toBe("kept");
    const ids = (await client.members()).map((m) => m.ID).sort();
    expect(ids).toHaveLength(3);
    expect(ids).toEqual(keptIds);
    await client.put("after-resume", "yes");
    // and destroyed again, keeping the data once more, for the restore below
    await estate.destroy("destroy (data kept, again)");
    for (const name of THREE)
      expect(fs.existsSync(path.join(root(name), "var/lib/etcd/member/wal"))).toBe(true);
  });

  test("a NEW cluster restored from the snapshot by `up` holds 10,000/10,000 keys", async () => {
    // runbook: no member may have data; destroy kept it, so the operator moves it aside
    for (const name of THREE) {
      const lib = path.join(root(name), "var/lib");
      fs.renameSync(path.join(lib, "etcd"), path.join(lib, "etcd.moved-by-hand"));
    }
    const url = `${mirror!.url}/etcd.db`;
    const wrong = await estate.upFailing(
      "up: restore with a wrong checksum",
      estate.input(THREE, { backup, restoreFrom: { url, sha256: "0".repeat(64) } }),
    );
    // every host's check fails alike; the CLI may shorten the output of some, so any host's line will do
    expect(wrong.message).toMatch(
      /pulumi-karmada: m[123]: check-snapshot: snapshot \S+ does not match sha256 0{64}/,
    );
    // checked before any host was touched: no install, certificate or member command ran anywhere
    const created = (JSON.parse(estate.storedState()).checkpoint.latest.resources ?? []) as { urn: string }[];
    expect(created.map((r) => r.urn).filter((urn) => /-(install|pki|member)$/.test(urn))).toEqual([]);
    for (const name of THREE) expect(fs.existsSync(path.join(root(name), "var/lib/etcd"))).toBe(false);

    // a file that is no etcd snapshot (a tarball, say) is refused by the same check, naming it
    fs.writeFileSync(path.join(snapshotCopy(), "not-a-snapshot.tar.gz"), "\x1f\x8b not a bbolt database");
    const notSnapshot = await estate.upFailing(
      "up: restore from a file that is no snapshot",
      estate.input(THREE, {
        backup,
        restoreFrom: {
          url: `${mirror!.url}/not-a-snapshot.tar.gz`,
          sha256: sha256(path.join(snapshotCopy(), "not-a-snapshot.tar.gz")),
        },
      }),
    );
    expect(notSnapshot.message).toMatch(/m[123]: check-snapshot: restoreFrom: \S+ is not an etcd snapshot/);

    const restoreFrom = { url, sha256: sha256(path.join(snapshotCopy(), "etcd.db")) };
    await estate.up("up: restore", estate.input(THREE, { backup, restoreFrom, deleteData: true }));
    const client = await estate.client(THREE);
    expect(await client.count("k/")).toBe(KEYS);
    expect(await client.get("k/09999")).toBe("value-9999");
    const newIds = (await client.members()).map((m) => m.ID).sort();
    expect(newIds).toHaveLength(3);
    expect(newIds).not.toEqual(oldIds);
    await client.put("after-restore", "yes");
    expect(await client.get("after-restore")).toBe("yes");
  });

  test("dropping restoreFrom afterwards restarts no member and keeps every key", async () => {
    const childPids = () =>
      THREE.map((name) =>
        fs.readFileSync(path.join(root(name), "run/pulumi-karmada/pk-etcd/child.pid"), "utf8").trim(),
      );
    const before = childPids();
    // a new cluster record (and token) for the same members: their data decides, nothing restarts
    await estate.up("up: restoreFrom removed", estate.input(THREE, { backup, deleteData: true }));
    expect(childPids()).toEqual(before);
    const client = await estate.client(THREE);
    expect(await client.count("k/")).toBe(KEYS);
    expect(await client.get("after-restore")).toBe("yes");
  });

  test("destroy with deleteData moves every data dir aside and erases none", async () => {
    await estate.destroy("destroy (deleteData)");
    for (const name of THREE) {
      const lib = path.join(root(name), "var/lib");
      expect(fs.existsSync(path.join(lib, "etcd"))).toBe(false);
      const aside = fs.readdirSync(lib).filter((d) => d.startsWith("etcd.deleted-"));
      expect(aside).toHaveLength(1);
      expect(fs.existsSync(path.join(lib, aside[0], "member/wal"))).toBe(true);
    }
  });
});
