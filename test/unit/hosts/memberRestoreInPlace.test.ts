/**
 * The member script asked to restore in place (`restoreFrom.replaceData`), run for real on an
 * initialised member under the real supervisor with stand-in etcd binaries: the snapshot is checked
 * before anything stops, a member that ignores TERM is killed after the 1 s restore grace, the old
 * data is moved aside and kept, the member restarts as a member of the restore's new cluster, and a
 * later run with the same token restores nothing again.
 */
import { spawnSync } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { memberScript } from "../../../lib/etcd/hosts/memberScript";
import { EtcdHostsArgs, EtcdSnapshotSource } from "../../../lib/etcd/hosts/config";
import { resolveEtcdHostsSettings } from "../../../lib/etcd/hosts/resolve";
import { installStandInEtcd } from "../../support/hosts/standInEtcd";
import { killScriptProcesses } from "../../../devkit/hosts/testbed";
import { TEST_SSH_KEY } from "../../../devkit/sshKey";

const ADDRESS = "127.0.98.7";
const PEER_PORT = 23810;
const SNAPSHOT = "/var/backups/s.db";

describe("member script restoring in place", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pk-restore-"));
  const lib = path.join(root, "var/lib");
  const run = (token: string, restoreFrom?: EtcdSnapshotSource) => {
    const args: EtcdHostsArgs = {
      hosts: [{ name: "solo", address: ADDRESS, privateKey: TEST_SSH_KEY, root }],
      serviceManager: "supervisor",
      clientPort: 23811,
      peerPort: PEER_PORT,
      backup: { enabled: false },
      restoreFrom,
    };
    const settings = resolveEtcdHostsSettings("etcd", args);
    const script = memberScript(settings, settings.members[0], { token, bootstrapMembers: ["solo"] });
    // a member that ignores TERM must be stopped within the 1 s restore grace, not etcd's 30 s stop grace
    return spawnSync("bash", ["-c", script], { encoding: "utf8", timeout: 20_000 });
  };
  const ok = (r: ReturnType<typeof run>) => {
    if (r.status !== 0) throw new Error(`member script failed: ${r.stderr}`);
    return r.stdout;
  };
  const conf = () => fs.readFileSync(path.join(root, "etc/etcd/etcd.conf.yml"), "utf8");
  const childPid = () => fs.readFileSync(path.join(root, "run/pulumi-karmada/pk-etcd/child.pid"), "utf8");
  const origin = () => fs.readFileSync(path.join(lib, "etcd/member/restored-from"), "utf8");
  const asides = () => fs.readdirSync(lib).filter((d) => d.startsWith("etcd.before-restore-"));
  const snapshot = (text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, SNAPSHOT)), { recursive: true });
    fs.writeFileSync(path.join(root, SNAPSHOT), text);
    return { path: SNAPSHOT, sha256: createHash("sha256").update(text).digest("hex"), replaceData: true };
  };

  beforeAll(() => {
    installStandInEtcd(root, ADDRESS, PEER_PORT, true);
    // a member of a running cluster, started with token etcd-old
    fs.mkdirSync(path.join(lib, "etcd/member/wal"), { recursive: true });
    fs.writeFileSync(path.join(lib, "etcd/member/restored-from"), "the old cluster's data");
    expect(ok(run("etcd-old"))).toContain("mode: run");
  });

  afterAll(() => {
    killScriptProcesses(root);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("restores nothing without replaceData: a member with data keeps it", () => {
    const pid = childPid();
    const out = ok(run("etcd-r1", { ...snapshot("SNAPSHOT one"), replaceData: false }));
    expect(out).toContain("mode: run");
    expect(origin()).toBe("the old cluster's data");
    expect(childPid()).toBe(pid);
  });

  it("checks the snapshot before stopping anything: a wrong checksum leaves the member running", () => {
    const pid = childPid();
    const source = { ...snapshot("SNAPSHOT one"), sha256: "0".repeat(64) };
    const r = run("etcd-r1", source);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`restore-snapshot: snapshot sha256 does not match ${"0".repeat(64)}`);
    expect(childPid()).toBe(pid);
    expect(origin()).toBe("the old cluster's data");
    expect(asides()).toEqual([]);
  });

  it("refuses a file that is no snapshot, still before stopping anything", () => {
    const pid = childPid();
    const r = run("etcd-r1", snapshot("not a snapshot"));
    expect(r.stderr).toContain("restore-snapshot: snapshot fails its integrity check");
    expect(childPid()).toBe(pid);
    expect(asides()).toEqual([]);
  });

  it("stops the member, keeps its data aside and restarts it restored into the new cluster", () => {
    const pid = childPid();
    const out = ok(run("etcd-r1", snapshot("SNAPSHOT one")));
    expect(out).toContain("this member holds the data of cluster etcd-old: restoring it in place");
    expect(origin()).toBe("SNAPSHOT one");
    expect(asides()).toHaveLength(1);
    expect(fs.readFileSync(path.join(lib, asides()[0], "member/restored-from"), "utf8")).toBe(
      "the old cluster's data",
    );
    expect(conf()).toContain("initial-cluster-token: etcd-r1\n");
    expect(conf()).toContain("initial-cluster-state: new\n");
    expect(childPid()).not.toBe(pid);
  });

  it("restores nothing again while the token is the restore's own", () => {
    const pid = childPid();
    const out = ok(run("etcd-r1", snapshot("SNAPSHOT one")));
    expect(out).toContain("mode: run");
    expect(origin()).toBe("SNAPSHOT one");
    expect(asides()).toHaveLength(1);
    expect(childPid()).toBe(pid);
  });
});
