/**
 * The lab's systemd machines (devkit/lab/machine.ts), on a small lab of their own (10.234.0.0/16, two
 * machines, no cluster): systemd is PID 1 on a pure cgroup2 guest and reaches `running` with no failed
 * unit; each machine is reached over SSH with the host key the lab pinned (another key is refused); the
 * machines reach each other on the lab bridge and nothing else; a unit with `Restart=always` comes back
 * after SIGKILL, and after a reboot (enabled), with its logs in the persistent journal; a machine whose
 * power is cut boots again with its disk. Then `stopLab` leaves nothing behind.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import { Lab, labLeftovers, startLab, stopLab } from "../../devkit/lab/lab";
import {
  awaitMachine,
  bootMachine,
  machineHostKey,
  machineRunning,
  machineSshArgs,
  onMachine,
  powerOffMachine,
} from "../../devkit/lab/machine";
import { LabPlan, MachinePlan } from "../../devkit/lab/plan";
import { e2eTier } from "../../devkit/engine";
import { waitFor } from "../../devkit/kube";

jest.setTimeout(10 * 60_000);

const tier = e2eTier("systemd machines (test/e2e/machines.test.ts)", {
  binaries: ["systemd-nspawn", "nsenter", "ssh", "ssh-keygen"],
});

const execFileAsync = promisify(execFile);

/** A unit as the library writes one: restarted whatever ends it. */
const PROBE_UNIT = [
  "[Unit]",
  "Description=lab probe",
  "[Service]",
  "ExecStart=/bin/sh -c 'echo probe started; exec sleep infinity'",
  "Restart=always",
  "RestartSec=1",
  "[Install]",
  "WantedBy=multi-user.target",
  "",
].join("\n");

tier.describe("systemd machines on the lab bridge", () => {
  let lab: Lab;
  let plan: LabPlan;
  let m1: MachinePlan;
  let m2: MachinePlan;
  const on = (m: MachinePlan, command: string) => onMachine(plan, m, command);
  const mainPid = async (m: MachinePlan) =>
    Number((await on(m, "systemctl show -p MainPID --value pk-probe.service")).trim());

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pk-machines-"));
    lab = await startLab({
      name: "machines",
      octet: 234,
      dir,
      clusters: [],
      machines: [{ name: "m1" }, { name: "m2" }],
    });
    plan = lab.plan;
    m1 = lab.machine("m1");
    m2 = lab.machine("m2");
  });

  afterAll(async () => {
    if (plan) await stopLab(plan).catch(() => undefined);
  });

  test("systemd is PID 1 on a cgroup2 guest, running with no failed unit, on the machine's own name and address", async () => {
    for (const m of [m1, m2]) {
      const [pid1, state, failed, cgroupFs, hostname, address] = (
        await on(
          m,
          [
            "cat /proc/1/comm",
            "systemctl is-system-running",
            "systemctl --failed --no-legend | wc -l",
            "stat -fc %T /sys/fs/cgroup",
            "hostname",
            "ip -4 -o addr show host0 | awk '{print $4}'",
          ].join("; "),
        )
      )
        .trim()
        .split("\n");
      expect({ pid1, state, failed, cgroupFs, hostname, address }).toEqual({
        pid1: "systemd",
        state: "running",
        failed: "0",
        cgroupFs: "cgroup2fs",
        hostname: m.name,
        address: `${m.address}/24`,
      });
    }
  });

  test("SSH checks the host key the lab pinned: a machine presenting another key is refused", async () => {
    const pinned = fs.readFileSync(lab.machineAccess.knownHostsPath, "utf8");
    expect(pinned).toContain(`${m1.address} ${machineHostKey(m1).split(" ").slice(0, 2).join(" ")}`);
    // m2's key pinned for m1's address: what a client sees when another machine answers there
    const wrong = path.join(plan.dir, "wrong_known_hosts");
    fs.writeFileSync(wrong, `${m1.address} ${machineHostKey(m2).split(" ").slice(0, 2).join(" ")}\n`);
    const args = machineSshArgs(plan, m1, "true").map((a) =>
      a.startsWith("UserKnownHostsFile=") ? `UserKnownHostsFile=${wrong}` : a,
    );
    await expect(execFileAsync("ssh", args, { encoding: "utf8" })).rejects.toMatchObject({
      stderr: expect.stringMatching(/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/),
    });
  });

  test("machines reach each other on the lab bridge; their only route out is the lab gateway", async () => {
    expect((await on(m1, `timeout 5 bash -c '</dev/tcp/${m2.address}/22' && echo open`)).trim()).toBe("open");
    const routes = (await on(m1, "ip -4 route"))
      .trim()
      .split("\n")
      .map((r) => r.trim())
      .sort();
    expect(routes).toEqual(
      [
        `default via ${plan.gateway} dev host0 proto static`,
        `${plan.gateway.replace(/\.1$/, ".0")}/24 dev host0 proto kernel scope link src ${m1.address}`,
      ].sort(),
    );
  });

  test("a unit with Restart=always is back after SIGKILL, with its logs in journald", async () => {
    await on(
      m1,
      `cat > /etc/systemd/system/pk-probe.service <<'EOF'\n${PROBE_UNIT}EOF\nsystemctl daemon-reload && systemctl enable --now pk-probe.service`,
    );
    const before = await mainPid(m1);
    expect(before).toBeGreaterThan(0);
    await on(m1, "systemctl kill --signal=SIGKILL pk-probe.service");
    await waitFor(
      "pk-probe restarted by systemd",
      async () => {
        const now = await mainPid(m1);
        return now > 0 && now !== before;
      },
      15_000,
      200,
    );
    // the new MainPID is set at fork, before the service's first line reaches journald
    const started = async () =>
      (await on(m1, "journalctl -u pk-probe.service --no-pager -o cat")).match(/probe started/g)?.length ?? 0;
    await waitFor(
      "the restarted probe's line in the journal",
      async () => (await started()) >= 2,
      15_000,
      200,
    );
    expect(await started()).toBeGreaterThanOrEqual(2);
  });

  test("`systemctl reboot`: the machine boots again by itself, the enabled unit runs, the journal kept the first boot", async () => {
    const bootId = (await on(m1, "cat /proc/sys/kernel/random/boot_id")).trim();
    // one line per boot (after a header): the boot ids the persistent journal holds
    const machineBoot = async () =>
      String((await on(m1, "journalctl --list-boots --no-pager")).match(/\b[0-9a-f]{32}\b/g)?.length ?? 0);
    expect(await machineBoot()).toBe("1");
    await on(m1, "systemctl reboot").catch(() => undefined); // the connection may drop first
    await waitFor(
      "m1 rebooted (one more boot in its journal)",
      async () => (await machineBoot().catch(() => "")) === "2",
      60_000,
      500,
    );
    await awaitMachine(plan, m1);
    expect((await on(m1, "systemctl is-active pk-probe.service")).trim()).toBe("active");
    const journal = await on(m1, "journalctl -u pk-probe.service --no-pager -o cat -b -1");
    expect(journal).toContain("probe started");
    // a new boot of the machine (systemd-nspawn gives each boot its own boot id, as a VM's kernel does)
    expect((await on(m1, "cat /proc/sys/kernel/random/boot_id")).trim()).not.toBe(bootId);
  });

  test("power cut: every process of the machine gone at once; booted again, it keeps its disk", async () => {
    await on(m2, "echo kept > /var/lib/pk-disk-check && sync");
    await powerOffMachine(m2);
    expect(machineRunning(m2)).toBe(false);
    await expect(on(m2, "true")).rejects.toThrow(/machine m2/);
    await awaitMachine(plan, m2, bootMachine(m2));
    expect((await on(m2, "cat /var/lib/pk-disk-check")).trim()).toBe("kept");
  });

  test("stopLab leaves nothing: no process, mount, cgroup, namespace, link or nspawn directory", async () => {
    await stopLab(plan);
    expect(labLeftovers(plan)).toEqual([]);
    expect(fs.existsSync(plan.dir)).toBe(false);
  });
});
