/**
 * The etcd host units as systemd itself reads them: `systemd-analyze verify` (from the system's systemd
 * package, not the test bed) finds no problem in the service and timer units we generate.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { etcdBackupServiceSpec, etcdServiceSpec } from "../../lib/etcd/hosts/service";
import { systemdServiceUnit, systemdTimerUnit } from "../../lib/hosts/service";
import { e2eTier } from "../../devkit/engine/tier";
import { requireBinary } from "../../devkit/testbed";
import { settingsWith } from "../../devkit/hosts/scriptFixtures";

const tier = e2eTier("systemd units of etcd hosts (test/e2e/systemd-units.test.ts)", {
  binaries: ["systemd-analyze"],
});

tier.describe("etcd host units", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-units-"));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("pass systemd-analyze verify", () => {
    // verify checks that ExecStart's program exists: a stand-in etcd in the units' binDir
    const binDir = path.join(tmp, "bin");
    fs.mkdirSync(binDir);
    fs.writeFileSync(path.join(binDir, "etcd"), "#!/bin/sh\n", { mode: 0o755 });
    const settings = settingsWith({ binDir });
    const etcd = etcdServiceSpec(settings, settings.members[0]);
    const backup = etcdBackupServiceSpec(settings, settings.members[0]);
    const dir = path.join(tmp, "units");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "pk-etcd.service"), systemdServiceUnit(etcd));
    fs.writeFileSync(
      path.join(dir, "pk-etcd-backup.service"),
      systemdServiceUnit({ ...backup, exec: ["/bin/sh", path.join(binDir, "etcd")] }),
    );
    fs.writeFileSync(path.join(dir, "pk-etcd-backup.timer"), systemdTimerUnit(backup));
    const r = spawnSync(
      requireBinary("systemd-analyze"),
      ["verify", "--man=no", ...fs.readdirSync(dir).map((f) => path.join(dir, f))],
      { encoding: "utf8" },
    );
    const complaints = r.stderr.split("\n").filter((l) => l.includes("pk-etcd"));
    expect(complaints).toEqual([]);
  });
});
