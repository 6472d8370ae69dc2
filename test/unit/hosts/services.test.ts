import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { etcdBackupServiceSpec, etcdServiceSpec } from "../../../lib/etcd/hosts/service";
import { renderScript } from "../../../lib/hosts/script";
import {
  DAEMON_HARDENING,
  ServiceSpec,
  systemdServiceUnit,
  systemdTimerUnit,
} from "../../../lib/hosts/service";
import { serviceCommands } from "../../../lib/hosts/serviceRunner";
import { isRunning } from "../../../devkit/processes";
import { settingsWith } from "../../../devkit/hosts/scriptFixtures";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pk-services-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// systemd-analyze verify of these units: test/e2e/systemd-units.test.ts
describe("systemd units", () => {
  const settings = settingsWith({ binDir: "/usr/bin" });
  const etcd = etcdServiceSpec(settings, settings.members[0]);
  const backup = etcdBackupServiceSpec(settings, settings.members[0]);

  it("runs etcd with its config file, restarts it, and waits for sd_notify", () => {
    const unit = systemdServiceUnit(etcd);
    expect(unit).toContain("ExecStart=/usr/bin/etcd --config-file=/etc/etcd/etcd.conf.yml\n");
    expect(unit).toMatch(/^Type=notify$/m);
    expect(unit).toMatch(/^Restart=always$/m);
    expect(systemdServiceUnit(backup)).toMatch(/^Type=oneshot$/m);
    // files the services create (snapshots, WAL, serving keys) are private under systemd too
    for (const u of [unit, systemdServiceUnit(backup)]) expect(u).toMatch(/^UMask=0077$/m);
    expect(systemdTimerUnit(backup)).toContain(`OnUnitActiveSec=${settings.backup.intervalSeconds}s`);
  });

  it("sandboxes long-running services (no capability, no new privileges, system-service calls); leaves the backup job's upload command alone", () => {
    const unit = systemdServiceUnit(etcd).split("\n");
    for (const line of DAEMON_HARDENING) expect(unit).toContain(line);
    expect(unit).toEqual(expect.arrayContaining(["CapabilityBoundingSet=", "NoNewPrivileges=yes"]));
    // the sandbox comes before ExecStart, inside [Service]
    const service = unit.indexOf("[Service]");
    expect(unit.indexOf("NoNewPrivileges=yes")).toBeGreaterThan(service);
    expect(unit.indexOf("NoNewPrivileges=yes")).toBeLessThan(
      unit.findIndex((l) => l.startsWith("ExecStart=")),
    );
    const job = systemdServiceUnit(backup).split("\n");
    expect(DAEMON_HARDENING.filter((line) => job.includes(line))).toEqual([]);
  });

  it("systemd's own stop (a reboot, an operator's systemctl stop) kills after the spec's grace too", () => {
    expect(systemdServiceUnit(etcd)).toMatch(/^TimeoutStopSec=30s$/m);
    expect(systemdServiceUnit({ ...etcd, stopGraceSeconds: 15 })).toMatch(/^TimeoutStopSec=15s$/m);
    expect(systemdServiceUnit(backup)).not.toContain("TimeoutStopSec");
  });

  it("refuses a stop grace that is not a whole number of seconds above 0", () => {
    expect(() => systemdServiceUnit({ ...etcd, stopGraceSeconds: 0 })).toThrow(
      "invalid service.stopGraceSeconds: 0 is not a whole number of seconds above 0",
    );
  });

  it("bounds a stop by the spec's grace: systemd's stop job is killed past it", () => {
    const stop = serviceCommands("systemd", { ...etcd, stopGraceSeconds: 7 }, "/").stop;
    expect(stop).toContain("timeout 7 systemctl stop pk-etcd.service");
    expect(stop).toContain("systemctl kill --signal=SIGKILL pk-etcd.service");
  });

  it("removes a service with its remove grace, restarts and stops with the stop grace", () => {
    const cmds = serviceCommands("systemd", { ...etcd, stopGraceSeconds: 7, removeGraceSeconds: 2 }, "/");
    expect(cmds.remove).toContain("timeout 2 systemctl stop pk-etcd.service");
    expect(cmds.remove).not.toContain("timeout 7");
    expect(cmds.stop).toContain("timeout 7 systemctl stop pk-etcd.service");
    // a restart is that bounded stop and a start, never systemd's own restart (its stop waits 90 s)
    expect(cmds.restart).toContain("timeout 7 systemctl stop pk-etcd.service");
    expect(cmds.restart).not.toContain("systemctl restart");
    expect(cmds.restart.indexOf("systemctl stop")).toBeLessThan(cmds.restart.indexOf("systemctl start"));
    // without a remove grace a removal is as patient as a stop
    expect(serviceCommands("systemd", { ...etcd, stopGraceSeconds: 7 }, "/").remove).toContain("timeout 7");
    expect(() => systemdServiceUnit({ ...etcd, removeGraceSeconds: 0.5 })).toThrow(
      "invalid service.removeGraceSeconds: 0.5 is not a whole number of seconds above 0",
    );
  });

  it("refuses exec arguments that would need quoting", () => {
    expect(() => systemdServiceUnit({ ...etcd, exec: ["/bin/etcd", "--name=a b"] })).toThrow(
      'invalid service.exec[1]: "--name=a b" needs quoting',
    );
  });
});

describe("supervisor runner (real processes)", () => {
  const state = path.join(tmp, "state");
  const log = path.join(tmp, "sleeper.log");
  const spec: ServiceSpec = {
    name: "pk-sleeper",
    description: "test",
    exec: ["/bin/sleep", "300"],
    logFile: log,
    stateDir: state,
  };
  const cmds = serviceCommands("supervisor", spec, tmp);
  const run = (body: string) =>
    spawnSync("bash", ["-c", renderScript({ host: "h", purpose: "t", steps: [{ name: "op", body }] })], {
      encoding: "utf8",
    });
  const active = () =>
    run(`if ${cmds.isActive}; then echo ACTIVE; else echo INACTIVE; fi`).stdout.includes("ACTIVE\n") &&
    !run(`if ${cmds.isActive}; then echo ACTIVE; else echo INACTIVE; fi`).stdout.includes("INACTIVE");
  const childPid = () => Number(fs.readFileSync(path.join(state, "child.pid"), "utf8"));
  afterAll(() => run(cmds.stop));

  it("starts once, restarts the program when it exits, and stops cleanly", async () => {
    expect(run(`${cmds.install}\n${cmds.start}`).status).toBe(0);
    expect(active()).toBe(true);
    const first = childPid();
    expect(run(cmds.start).status).toBe(0); // idempotent
    expect(childPid()).toBe(first);
    process.kill(first, "SIGKILL");
    const deadline = Date.now() + 10_000;
    while ((!fs.existsSync(path.join(state, "child.pid")) || childPid() === first) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(childPid()).not.toBe(first);
    expect(fs.readFileSync(log, "utf8")).toMatch(/supervise: \/bin\/sleep exited with 137; next start in 1s/);
    const second = childPid();
    expect(run(cmds.stop).status).toBe(0);
    expect(active()).toBe(false);
    expect(() => process.kill(second, 0)).toThrow();
    expect(run(cmds.stop).status).toBe(0); // stopping a stopped service is fine
  });

  /** A program that ignores TERM, started under the supervisor with the given graces. */
  const startStubborn = (
    name: string,
    graces: Pick<ServiceSpec, "stopGraceSeconds" | "removeGraceSeconds">,
  ) => {
    const program = path.join(tmp, "stubborn.sh");
    fs.writeFileSync(program, "#!/usr/bin/env bash\ntrap '' TERM\nwhile true; do sleep 0.2; done\n", {
      mode: 0o755,
    });
    const stubborn = serviceCommands(
      "supervisor",
      { ...spec, name, exec: [program], stateDir: path.join(tmp, name), ...graces },
      tmp,
    );
    expect(run(`${stubborn.install}\n${stubborn.start}`).status).toBe(0);
    const pidFile = path.join(tmp, name, "child.pid");
    const deadline = Date.now() + 10_000;
    while (!fs.existsSync(pidFile) && Date.now() < deadline) spawnSync("sleep", ["0.1"]);
    return { commands: stubborn, child: Number(fs.readFileSync(pidFile, "utf8")) };
  };

  it("kills a program that ignores TERM once its grace is over", () => {
    const { commands: stubborn, child } = startStubborn("pk-stubborn", { stopGraceSeconds: 1 });
    expect(run(stubborn.stop).status).toBe(0);
    // it ignores TERM: only the KILL after the grace ends it (a zombie left to PID 1 counts as gone)
    expect(isRunning(child)).toBe(false);
  });

  it("removes a service for good with its remove grace, not the stop grace a restart gets", () => {
    const { commands: stubborn, child } = startStubborn("pk-leaving", {
      stopGraceSeconds: 600,
      removeGraceSeconds: 1,
    });
    expect(stubborn.restart).toContain("seq 1 6000");
    // under the stop grace this would wait ten minutes: the run is cut off after one
    const removed = spawnSync(
      "bash",
      ["-c", renderScript({ host: "h", purpose: "t", steps: [{ name: "op", body: stubborn.remove }] })],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(removed.signal).toBeNull();
    expect(removed.status).toBe(0);
    expect(isRunning(child)).toBe(false);
    expect(fs.existsSync(path.join(tmp, "pk-leaving"))).toBe(false);
  });
});
