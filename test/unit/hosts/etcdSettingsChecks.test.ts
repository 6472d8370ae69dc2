import { ConfigError } from "../../../lib/validation/errors";
import { ETCD_HOSTS_DEFAULTS } from "../../../lib/etcd/hosts/defaults";
import {
  port,
  privateDir,
  validateBackupHost,
  validateEtcdVersion,
  validateMemberCount,
  validateRetain,
  validateServiceManager,
  validateSystemdRoot,
} from "../../../lib/etcd/hosts/validate";
import type { ResolvedHost } from "../../../lib/hosts/spec";

/** The ConfigError `fn` throws (field and message), or undefined. */
function problem(fn: () => unknown): { field: string; message: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { field: e.field, message: e.message };
  }
}

const hosts = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `h${i}` }) as ResolvedHost);

describe("etcd on hosts: each check alone", () => {
  it("accepts odd member counts up to 7 and names the allowed ones otherwise", () => {
    for (const n of [1, 3, 5, 7])
      expect(problem(() => validateMemberCount("etcd.hosts", hosts(n)))).toBeUndefined();
    expect(problem(() => validateMemberCount("etcd.hosts", hosts(4)))).toEqual({
      field: "etcd.hosts",
      message: expect.stringMatching(/4 members cannot keep a majority.*\(allowed: 1, 3, 5, 7\)/),
    });
  });

  it("takes etcd 3 releases only", () => {
    expect(problem(() => validateEtcdVersion("etcd.version", ETCD_HOSTS_DEFAULTS.version))).toBeUndefined();
    for (const bad of ["3.5.21", "v2.3.8", "v3.5", 3]) {
      expect(problem(() => validateEtcdVersion("etcd.version", bad))?.message).toMatch(
        /not an etcd 3 release/,
      );
    }
  });

  it("knows the service managers and that systemd needs the real root", () => {
    expect(problem(() => validateServiceManager("f", "supervisor"))).toBeUndefined();
    expect(problem(() => validateServiceManager("f", "runit"))?.message).toMatch(
      /allowed: systemd, supervisor/,
    );
    expect(problem(() => validateSystemdRoot("etcd.hosts[1].root", "/srv/h1"))?.field).toBe(
      "etcd.hosts[1].root",
    );
    expect(problem(() => validateSystemdRoot("f", "/"))).toBeUndefined();
  });

  it("checks ports, private directories, the backup host and retention", () => {
    expect(port(2379, "p")).toBe(2379);
    expect(problem(() => port(70000, "etcd.clientPort"))?.message).toMatch(
      /port 70000 out of range \(allowed: 1-65535\)/,
    );
    expect(privateDir(ETCD_HOSTS_DEFAULTS.dataDir, "d")).toBe("/var/lib/etcd");
    expect(problem(() => privateDir("/var/lib", "etcd.dataDir"))?.message).toMatch(
      /shared system directory.*e\.g\. \/var\/lib\/etcd/,
    );
    expect(problem(() => validateBackupHost("etcd.backup.host", "h9", hosts(3)))?.message).toMatch(
      /"h9" is not one of the hosts \(allowed: h0, h1, h2\)/,
    );
    expect(problem(() => validateRetain("r", 0))?.message).toMatch(/out of range \(allowed: 1-1000\)/);
    expect(problem(() => validateRetain("r", ETCD_HOSTS_DEFAULTS.backup.retain))).toBeUndefined();
  });
});
