import { planEtcdHosts } from "../../../lib/etcd/hosts/plan";
import { DEFAULT_ETCD_VERSION, etcdReleaseUrl } from "../../../lib/etcd/hosts/release";
import { resolveEtcdHostsSettings } from "../../../lib/etcd/hosts/resolve";
import { initialCluster } from "../../../lib/etcd/hosts/urls";
import { classifySshFailure, explainSshFailure } from "../../../lib/hosts/sshErrors";
import { hosts, settingsWith } from "../../../devkit/hosts/scriptFixtures";

describe("resolveEtcdHostsSettings", () => {
  it("defaults to the upstream v3.5.21 tarball with its known checksum, systemd, 2379/2380", () => {
    const s = settingsWith();
    expect(s.artifact).toEqual({
      kind: "url",
      url: etcdReleaseUrl(DEFAULT_ETCD_VERSION),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect([s.serviceManager, s.clientPort, s.peerPort, s.deleteData]).toEqual([
      "systemd",
      2379,
      2380,
      false,
    ]);
    expect(s.backup).toMatchObject({ enabled: true, host: "etcd-1", retain: 7, intervalSeconds: 21600 });
  });

  it.each([
    [
      { hosts: hosts(2) },
      "invalid etcd.hosts: 2 members cannot keep a majority through failures (allowed: 1, 3, 5, 7)",
    ],
    [{ version: "3.5.21" }, 'invalid etcd.version: "3.5.21" is not an etcd 3 release (allowed: v3.X.Y)'],
    [
      { version: "v3.5.99" },
      "invalid etcd.artifact.sha256: is required to verify the download of https://github.com/etcd-io/etcd/releases/download/v3.5.99/etcd-v3.5.99-linux-amd64.tar.gz",
    ],
    [
      { artifact: { url: "https://m/e.tgz" } },
      "invalid etcd.artifact.sha256: is required to verify the download of https://m/e.tgz",
    ],
    [
      { artifact: { url: "https://m/e.tgz", path: "/opt" } },
      "invalid etcd.artifact: set either url or path, not both",
    ],
    [
      { serviceManager: "runit" as never },
      'invalid etcd.serviceManager: "runit" is not a service manager (allowed: systemd, supervisor)',
    ],
    [
      { hosts: hosts(1, () => "/srv/h") },
      'invalid etcd.hosts[0].root: systemd only sees units under "/", not "/srv/h"',
    ],
    [{ peerPort: 2379 }, "invalid etcd.peerPort: 2379 is also the client port"],
    [{ clientPort: 70000 }, "invalid etcd.clientPort: port 70000 out of range"],
    [{ dataDir: "/var/lib/../etc" }, 'invalid etcd.dataDir: "/var/lib/../etc" is not a safe absolute path'],
    [
      { backup: { host: "nope" } },
      'invalid etcd.backup.host: "nope" is not one of the hosts (allowed: etcd-1, etcd-2, etcd-3)',
    ],
    [{ backup: { retain: 0 } }, "invalid etcd.backup.retain: 0 out of range (allowed: 1-1000)"],
    [{ restoreFrom: { url: "https://m/s.db" } }, "invalid etcd.restoreFrom.sha256: is required"],
    [
      { restoreFrom: { path: "/b/s.db", replaceData: "yes" as unknown as boolean } },
      'invalid etcd.restoreFrom.replaceData: "yes" is not a boolean (allowed: true, false)',
    ],
    [{ repairGeneration: -1 }, "invalid etcd.repairGeneration: -1 must be a non-negative integer"],
  ])("rejects %j", (extra, message) => {
    expect(() => resolveEtcdHostsSettings("etcd", { hosts: hosts(3), ...extra })).toThrow(message);
  });
});

describe("planEtcdHosts", () => {
  const settings = settingsWith({}, 5);
  const plan = planEtcdHosts(settings, {
    token: "etcd-abc",
    bootstrapMembers: ["etcd-1", "etcd-2", "etcd-3"],
  });
  const byId = new Map(plan.commands.map((c) => [c.id, c]));

  it("runs install and pki side by side, then member, per host; members at once; then cluster, then backup", () => {
    expect(plan.commands.map((c) => c.id).slice(0, 3)).toEqual([
      "etcd-1-install",
      "etcd-1-pki",
      "etcd-1-member",
    ]);
    // preflight checks run first inside install: one SSH session instead of two
    expect(byId.get("etcd-1-install")!.create.indexOf("pk_step 'check-ports'")).toBeLessThan(
      byId.get("etcd-1-install")!.create.indexOf("pk_step 'install-binaries'"),
    );
    for (const host of ["etcd-1", "etcd-4"]) {
      expect(byId.get(`${host}-install`)!.dependsOn).toEqual([]);
      expect(byId.get(`${host}-pki`)!.dependsOn).toEqual([]);
      // no member waits for another: joins and restarts take turns inside the member script
      expect(byId.get(`${host}-member`)!.dependsOn).toEqual([`${host}-install`, `${host}-pki`]);
    }
    expect(byId.get("cluster")!.dependsOn).toEqual([
      "etcd-1-member",
      "etcd-2-member",
      "etcd-3-member",
      "etcd-4-member",
      "etcd-5-member",
    ]);
    expect(byId.get("backup")!.dependsOn).toEqual(["cluster"]);
    // Every dependency comes earlier in the list: the list is a valid execution order.
    const seen = new Set<string>();
    for (const c of plan.commands) {
      expect(c.dependsOn.filter((d) => !seen.has(d))).toEqual([]);
      seen.add(c.id);
    }
  });

  it("sends certificates only through stdin of the pki commands, which are secret", () => {
    expect(plan.commands.filter((c) => c.stdin).map((c) => c.id)).toEqual(
      plan.commands.filter((c) => c.id.endsWith("-pki")).map((c) => c.id),
    );
    expect(plan.commands.filter((c) => c.secret).map((c) => c.id)).toEqual(
      plan.commands.filter((c) => c.stdin).map((c) => c.id),
    );
  });

  it("lets only bootstrap members found a cluster; others must join", () => {
    expect(byId.get("etcd-1-member")!.create).toContain("is_bootstrap=yes");
    expect(byId.get("etcd-4-member")!.create).toContain("is_bootstrap=no");
    expect(byId.get("etcd-4-member")!.create).toContain(
      `initial_cluster='${initialCluster(settings, ["etcd-1", "etcd-2", "etcd-3"])}'`,
    );
    expect(byId.get("etcd-4-member")!.create).toContain(
      'member add "${my_name}" --peer-urls="${my_peer}" --learner',
    );
  });

  it("removes unlisted members from the cluster step and only stops services on delete", () => {
    expect(byId.get("cluster")!.create).toContain("member remove");
    expect(byId.get("etcd-1-member")!.delete).not.toContain("member remove");
    expect(byId.get("etcd-1-member")!.delete).toContain("kept (deleteData is false)");
    const deleting = planEtcdHosts(settingsWith({ deleteData: true }), {
      token: "t",
      bootstrapMembers: ["etcd-1"],
    });
    expect(deleting.commands.find((c) => c.id === "etcd-1-member")!.delete).toContain(".deleted-");
  });

  it("re-runs exactly the member start steps when repairGeneration is bumped", () => {
    const context = { token: "etcd-abc", bootstrapMembers: ["etcd-1", "etcd-2", "etcd-3"] };
    const scripts = (repairGeneration?: number) =>
      new Map(
        planEtcdHosts(settingsWith({ repairGeneration }, 5), context).commands.map((c) => [
          c.id,
          [c.create, c.delete],
        ]),
      );
    const [before, zero, bumped] = [scripts(), scripts(0), scripts(1)];
    // the default changes nothing, so upgrading re-runs nothing
    expect(zero).toEqual(before);
    const changed = [...bumped.keys()].filter((id) => bumped.get(id)![0] !== before.get(id)![0]);
    expect(changed).toEqual([
      "etcd-1-member",
      "etcd-2-member",
      "etcd-3-member",
      "etcd-4-member",
      "etcd-5-member",
    ]);
    // what runs on delete stays as it was
    expect([...bumped.keys()].every((id) => bumped.get(id)![1] === before.get(id)![1])).toBe(true);
  });

  it("moves a lost host's commands to the host listed instead of it (aliased ids), and only those", () => {
    const base = settingsWith({}, 3);
    const replaced = resolveEtcdHostsSettings("etcd", {
      hosts: hosts(3).map((h) => (h.name === "etcd-3" ? { ...h, name: "etcd-4", replaces: "etcd-3" } : h)),
    });
    const moved = planEtcdHosts(replaced, { token: "t", bootstrapMembers: ["etcd-1", "etcd-2", "etcd-3"] });
    expect(moved.commands.filter((c) => c.replacesId).map((c) => [c.id, c.replacesId])).toEqual([
      ["etcd-4-install", "etcd-3-install"],
      ["etcd-4-pki", "etcd-3-pki"],
      ["etcd-4-member", "etcd-3-member"],
    ]);
    // the others keep their ids; the plan has the same shape as before
    expect(moved.commands.map((c) => c.id.replace("etcd-4", "etcd-3"))).toEqual(
      planEtcdHosts(base, { token: "t", bootstrapMembers: [] }).commands.map((c) => c.id),
    );
  });

  it("restores only when restoreFrom is set, with the context's token", () => {
    expect(byId.get("etcd-1-member")!.create).not.toContain("snapshot restore");
    const restoring = planEtcdHosts(settingsWith({ restoreFrom: { path: "/backups/s.db" } }), {
      token: "etcd-new",
      bootstrapMembers: ["etcd-1", "etcd-2", "etcd-3"],
    });
    const script = restoring.commands.find((c) => c.id === "etcd-2-member")!.create;
    expect(script).toContain("snapshot restore");
    expect(script).toContain("--initial-cluster-token 'etcd-new'");
  });

  it("checks a restore's snapshot on every host before any host is changed", () => {
    expect([...byId.keys()].filter((id) => id.endsWith("snapshot-check"))).toEqual([]);
    const restoring = planEtcdHosts(settingsWith({ restoreFrom: { path: "/backups/s.db" } }), {
      token: "etcd-new",
      bootstrapMembers: ["etcd-1", "etcd-2", "etcd-3"],
    });
    const checks = restoring.commands.filter((c) => c.id.endsWith("-snapshot-check")).map((c) => c.id);
    expect(checks).toEqual(["etcd-1-snapshot-check", "etcd-2-snapshot-check", "etcd-3-snapshot-check"]);
    // what changes a host (binaries, certificates; the member after both) waits for every host's check
    for (const command of restoring.commands.filter((c) => /-(install|pki)$/.test(c.id))) {
      expect([command.id, command.dependsOn]).toEqual([command.id, checks]);
    }
  });
});

describe("SSH failure messages", () => {
  it.each([
    ["ssh: connect to host 10.0.0.9 port 22: Connection refused", "unreachable", "host unreachable"],
    [
      "root@10.0.0.9: Permission denied (publickey).",
      "auth",
      "SSH authentication failed (wrong private key or user?)",
    ],
    [
      "ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey]",
      "auth",
      "SSH authentication failed",
    ],
    ["Host key verification failed.", "host-key", "SSH host key does not match the pinned hostKey"],
    ["dial tcp 10.0.0.9:22: i/o timeout", "unreachable", "host unreachable"],
  ])("%s", (stderr, kind, text) => {
    expect(classifySshFailure(stderr)).toBe(kind);
    const message = explainSshFailure("etcd-2", "10.0.0.9:22", "preflight", stderr);
    expect(message.startsWith(`pulumi-karmada: etcd-2: preflight: ${text}`)).toBe(true);
    expect(explainSshFailure("etcd-2", "10.0.0.9:22", "preflight", stderr)).toMatch(
      new RegExp(`\\(ssh 10\\.0\\.0\\.9:22: ${stderr.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)$`),
    );
  });
});
