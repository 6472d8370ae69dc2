/**
 * The check every host runs on a restore's snapshot before any host is changed
 * (lib/etcd/hosts/restore.ts `snapshotCheckScript`), run for real with bash on files under a host root:
 * only a regular file with bbolt's header (what `etcdctl snapshot save` writes) and the given sha256
 * passes; anything else fails naming the setting.
 */
import { spawnSync } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { memberFiles } from "../../../lib/etcd/hosts/etcdConfigFile";
import { snapshotCheckScript } from "../../../lib/etcd/hosts/restore";
import { resolveEtcdHostsSettings } from "../../../lib/etcd/hosts/resolve";
import { TEST_SSH_KEY } from "../../../devkit/sshKey";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "pk-snapshot-check-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The first bytes of a bbolt database: a 16-byte page header, then the meta page's magic 0xED0CDAED. */
const BBOLT_HEAD = Buffer.concat([
  Buffer.alloc(16),
  Buffer.from([0xed, 0xda, 0x0c, 0xed]),
  Buffer.alloc(4060),
]);

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/** Writes `content` at `relative` under the host root. */
function place(relative: string, content: Buffer | string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), content);
}

/** Runs the check for a snapshot at `snapshotPath` (on the host), with `sha256` when given. */
function check(snapshotPath: string, sum?: string) {
  const settings = resolveEtcdHostsSettings("etcd", {
    hosts: [{ name: "e1", address: "127.0.0.1", privateKey: TEST_SSH_KEY, root }],
    serviceManager: "supervisor",
    restoreFrom: { path: snapshotPath, sha256: sum },
  });
  const member = settings.members[0];
  const script = snapshotCheckScript(member, memberFiles(settings, member), settings.restoreFrom!);
  return spawnSync("bash", ["-c", script], { encoding: "utf8", timeout: 20_000 });
}

describe("the snapshot check before a restore", () => {
  test("a snapshot as etcdctl writes it passes, its size reported", () => {
    place("backups/good.db", BBOLT_HEAD);
    const result = check("/backups/good.db", sha256(BBOLT_HEAD));
    expect([result.status, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toContain(`snapshot ${BBOLT_HEAD.length} bytes: an etcd snapshot`);
  });

  test.each([
    ["a missing file", "/backups/none.db", undefined, "snapshot /backups/none.db does not exist on e1"],
    ["a directory", "/backups", undefined, "/backups on e1 is not a file"],
    ["an empty file", "/backups/empty.db", undefined, "is empty"],
    ["a tarball", "/backups/etcd.tar.gz", undefined, "is not an etcd snapshot"],
    [
      "a snapshot whose sha256 differs",
      "/backups/good.db",
      "0".repeat(64),
      "does not match " + "0".repeat(64),
    ],
  ])("%s fails, naming the setting", (_, snapshotPath, sum, message) => {
    place("backups/good.db", BBOLT_HEAD);
    place("backups/empty.db", "");
    place("backups/etcd.tar.gz", Buffer.from([0x1f, 0x8b, 0x08, 0x00, ...Buffer.alloc(64)]));
    const result = check(snapshotPath, sum);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("check-snapshot: restoreFrom");
    expect(result.stderr).toContain(message);
  });
});
