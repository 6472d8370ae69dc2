import { TEST_SSH_KEY } from "../../../devkit/sshKey";
/**
 * The member script run for real on an initialised member (a stand-in etcd that only listens on the
 * peer port, under the real supervisor): a new cluster token alone never rewrites the config nor
 * restarts the member; a real configuration change still does, in its turn when other members answer
 * and at once when they have no quorum.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { memberScript } from "../../../lib/etcd/hosts/memberScript";
import { EtcdHostsArgs } from "../../../lib/etcd/hosts/config";
import { resolveEtcdHostsSettings } from "../../../lib/etcd/hosts/resolve";
import { installStandInEtcd } from "../../support/hosts/standInEtcd";
import { killScriptProcesses } from "../../../devkit/hosts/testbed";

const ADDRESS = "127.0.98.2";
const PEER_PORT = 23800;

describe("member script on an initialised member", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pk-member-"));
  const args = (extra: Partial<EtcdHostsArgs> = {}): EtcdHostsArgs => ({
    hosts: [{ name: "solo", address: ADDRESS, privateKey: TEST_SSH_KEY, root }],
    serviceManager: "supervisor",
    clientPort: 23790,
    peerPort: PEER_PORT,
    backup: { enabled: false },
    ...extra,
  });
  const run = (token: string, extra?: Partial<EtcdHostsArgs>) => {
    const settings = resolveEtcdHostsSettings("etcd", args(extra));
    const bootstrapMembers = settings.members.map((m) => m.name);
    const script = memberScript(settings, settings.members[0], { token, bootstrapMembers });
    const r = spawnSync("bash", ["-c", script], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`member script failed: ${r.stderr}`);
    return r.stdout;
  };
  const conf = () => fs.readFileSync(path.join(root, "etc/etcd/etcd.conf.yml"), "utf8");
  const childPid = () => fs.readFileSync(path.join(root, "run/pulumi-karmada/pk-etcd/child.pid"), "utf8");

  beforeAll(() => {
    installStandInEtcd(root, ADDRESS, PEER_PORT);
    fs.mkdirSync(path.join(root, "var/lib/etcd/member/wal"), { recursive: true });
  });

  afterAll(() => {
    killScriptProcesses(root);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("keeps the token it started with: a new token restarts nothing", () => {
    expect(run("etcd-old")).toContain("mode: run");
    expect(conf()).toContain("initial-cluster-token: etcd-old\n");
    const pid = childPid();
    const again = run("etcd-new");
    expect(again).not.toContain("restarting");
    expect(conf()).toContain("initial-cluster-token: etcd-old\n");
    expect(childPid()).toBe(pid);
  });

  it("still restarts the member when its configuration really changes", () => {
    const pid = childPid();
    expect(run("etcd-new", { snapshotCount: 5000 })).toContain("configuration changed: restarting etcd");
    expect(conf()).toContain("snapshot-count: 5000\n");
    expect(conf()).toContain("initial-cluster-token: etcd-old\n");
    expect(childPid()).not.toBe(pid);
  });

  it("restarts without a turn when the other members have no quorum (nothing left to keep available)", () => {
    const pid = childPid();
    // other members that do not answer: the turn (a lease on the cluster) cannot be had
    const peers = ["peer-1", "peer-2"].map((name, i) => ({
      name,
      address: `127.0.98.${3 + i}`,
      privateKey: TEST_SSH_KEY,
      root,
    }));
    const out = run("etcd-new", { snapshotCount: 4000, hosts: [...args().hosts, ...peers] });
    expect(out).toContain("the other members have no quorum: restarting without waiting for a turn");
    expect(out).toContain("configuration changed: restarting etcd");
    expect(childPid()).not.toBe(pid);
  });
});
