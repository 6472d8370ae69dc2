/**
 * systemd machines of a lab: each boots the test bed's machine image (devkit/machines/image.sh) under an
 * overlay of its own with `systemd-nspawn -b`, so systemd is PID 1 and journald, units, restarts and
 * reboots are real. A machine sits on the lab bridge with its own address (systemd-networkd inside), runs
 * OpenSSH with a host key of its own that the lab records (the estate pins it), and has no outbound
 * network: what it installs reaches it the way the library ships to offline hosts.
 *
 * How it runs here (facts in issue 32): no machined (`--register=no --keep-unit`), each machine's
 * launcher in a cgroup of its own under the lab's (so machines do not collide and `stopLab` kills exactly
 * them), a pure cgroup2 guest like a Debian 12 VM (`SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1`), and a launcher
 * that boots it again when the guest reboots (nspawn exits 133 on `systemctl reboot`).
 */
import { execFile, execFileSync } from "child_process";
import { randomBytes } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { promisify } from "util";
import { BackgroundProcess, isRunning, logTail, startProcess } from "../processes";
import { testbedEnv } from "../testbed";
import { ensureCgroup, joinCgroupLines, processesIn, removeCgroupTree } from "./cgroups";
import { mountsBelow, unmountBelow } from "./mounts";
import { inNamespace } from "./network";
import type { LabPlan, MachinePlan } from "./plan";

const execFileAsync = promisify(execFile);

/** The exit status of systemd-nspawn when the machine asked for a reboot. */
export const NSPAWN_REBOOT_STATUS = 133;
/** The user the lab logs in as on its machines. */
const MACHINE_USER = "root";
/** The interface systemd-nspawn gives a machine on the bridge (`--network-bridge`). */
const GUEST_INTERFACE = "host0";
/** systemd-nspawn's per-machine directories on this machine (gone with the machine; checked by the teardown). */
const NSPAWN_RUN_DIR = "/run/systemd/nspawn/propagate";

/** The test bed's machine image (its root filesystem), built by `scripts/testbed/build.sh machine-image`. */
function testbedMachineImage(): string {
  const root = testbedEnv().env.TESTBED_MACHINE_IMAGE;
  if (!root || !fs.existsSync(path.join(root, "lib/systemd/systemd"))) {
    throw new Error("the test bed's machine image is not built (scripts/testbed/build.sh machine-image)");
  }
  return root;
}

/** Files of one machine. */
export interface MachineFiles {
  /** The overlay's upper layer: everything the machine wrote (its disk). */
  readonly upper: string;
  readonly work: string;
  /** The merged root the machine boots. */
  readonly root: string;
  /** The launcher script, its log (the machine's console) and pid file. */
  readonly runDir: string;
  readonly launcher: string;
}

/** Where a machine's files are. */
export function machineFiles(machine: MachinePlan): MachineFiles {
  const runDir = path.join(machine.dir, "run");
  return {
    upper: path.join(machine.dir, "upper"),
    work: path.join(machine.dir, "work"),
    root: path.join(machine.dir, "root"),
    runDir,
    launcher: path.join(runDir, "boot.sh"),
  };
}

/** How the lab (and an estate on it) logs in to its machines. */
export interface MachineAccess {
  /** The lab's private key (authorized on every machine as root). A credential: never log it. */
  readonly privateKeyPath: string;
  /** `known_hosts` holding every machine's host key: strict host key checking against it. */
  readonly knownHostsPath: string;
}

/** The lab's machine access files (in the lab dir). */
export function machineAccess(lab: LabPlan): MachineAccess {
  const dir = path.join(lab.dir, "machines");
  return { privateKeyPath: path.join(dir, "id_ed25519"), knownHostsPath: path.join(dir, "known_hosts") };
}

/** systemd-networkd's file for the machine's bridge interface (replaces systemd's DHCP default of the same name). */
export function machineNetworkFile(lab: LabPlan, machine: MachinePlan): string {
  return [
    "# devkit/lab/machine.ts: the machine's address on the lab bridge",
    "[Match]",
    `Name=${GUEST_INTERFACE}`,
    "",
    "[Network]",
    `Address=${machine.address}/24`,
    `Gateway=${lab.gateway}`,
    "LinkLocalAddressing=no",
    "",
  ].join("\n");
}

/**
 * The machine's launcher: joins the machine's cgroup, then boots it in the lab's network namespace, again
 * after each reboot the guest asks for; any other end of nspawn ends the launcher (a halt, a crash).
 */
export function machineLauncherScript(lab: LabPlan, machine: MachinePlan): string {
  const f = machineFiles(machine);
  const nspawn = [
    ...inNamespace(lab.netns),
    "systemd-nspawn",
    "--quiet",
    `--directory=${f.root}`,
    "--boot",
    `--machine=${machine.nspawnName}`,
    `--hostname=${machine.name}`,
    "--register=no",
    "--keep-unit",
    `--network-bridge=${lab.bridge}`,
    "--link-journal=no",
    "--resolv-conf=off",
    // the console's output goes to the launcher's log: a console nobody reads (`passive`) fills its pty's
    // buffer, and systemd then blocks on its next status line (seen as a reboot stuck after umount.target)
    "--console=read-only",
  ];
  return [
    "#!/bin/bash",
    "# Written by devkit/lab/machine.ts: boots the machine, and again when it reboots.",
    ...joinCgroupLines(machine.cgroup),
    "export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1",
    "while :; do",
    `  ${nspawn.join(" ")}`,
    "  status=$?",
    `  echo "[launcher] systemd-nspawn exited with $status at $(date -u +%FT%TZ)"`,
    `  [ "$status" = ${NSPAWN_REBOOT_STATUS} ] || exit "$status"`,
    "done",
    "",
  ].join("\n");
}

function writeFile(file: string, text: string | Buffer, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode });
  fs.chmodSync(file, mode);
}

/** Writes a new ed25519 key pair without a passphrase (`file`, `file.pub`). */
function newKeyPair(file: string, comment: string): void {
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", file]);
}

/** Creates the lab's key pair for its machines, once. */
function ensureMachineKey(lab: LabPlan): void {
  const { privateKeyPath } = machineAccess(lab);
  if (fs.existsSync(privateKeyPath)) return;
  fs.mkdirSync(path.dirname(privateKeyPath), { recursive: true, mode: 0o700 });
  newKeyPair(privateKeyPath, `lab-${lab.name}`);
}

/**
 * Mounts the machine's overlay on the image and writes what is the machine's own (once: a machine that
 * boots again keeps its host key, machine-id and everything it wrote): hostname, machine-id, host key,
 * the lab's authorized key, its address.
 */
function prepareMachine(lab: LabPlan, machine: MachinePlan, imageRoot: string): void {
  const f = machineFiles(machine);
  for (const dir of [f.work, f.runDir]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // the upper layer's top is the machine's `/`: its services' users (systemd-network …) must enter it
  for (const dir of [f.upper, f.root]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o755);
  }
  if (!mountsBelow([f.root]).includes(f.root)) {
    execFileSync("mount", [
      "-t",
      "overlay",
      "overlay",
      "-o",
      `lowerdir=${imageRoot},upperdir=${f.upper},workdir=${f.work}`,
      f.root,
    ]);
  }
  const inRoot = (p: string) => path.join(f.root, p);
  writeFile(inRoot("/etc/hostname"), `${machine.name}\n`, 0o644);
  writeFile(
    inRoot("/etc/systemd/network/80-container-host0.network"),
    machineNetworkFile(lab, machine),
    0o644,
  );
  if (fs.readFileSync(inRoot("/etc/machine-id"), "utf8").trim() === "") {
    writeFile(inRoot("/etc/machine-id"), `${randomBytes(16).toString("hex")}\n`, 0o444);
  }
  const hostKey = inRoot("/etc/ssh/ssh_host_ed25519_key");
  if (!fs.existsSync(hostKey)) {
    newKeyPair(hostKey, `root@${machine.name}`);
  }
  const authorized = fs.readFileSync(`${machineAccess(lab).privateKeyPath}.pub`, "utf8");
  fs.mkdirSync(inRoot("/root/.ssh"), { recursive: true, mode: 0o700 });
  writeFile(inRoot("/root/.ssh/authorized_keys"), authorized, 0o600);
  fs.writeFileSync(f.launcher, machineLauncherScript(lab, machine), { mode: 0o700 });
}

/** The machine's public host key (`ssh-ed25519 AAAA… root@<name>`), as its sshd presents it. */
export function machineHostKey(machine: MachinePlan): string {
  return fs
    .readFileSync(path.join(machineFiles(machine).root, "etc/ssh/ssh_host_ed25519_key.pub"), "utf8")
    .trim();
}

/** Writes the lab's known_hosts: every machine's address with its host key. */
function writeKnownHosts(lab: LabPlan): void {
  const lines = lab.machines.map((m) => {
    const [type, key] = machineHostKey(m).split(" ");
    return `${m.address} ${type} ${key}`;
  });
  writeFile(machineAccess(lab).knownHostsPath, `${lines.join("\n")}\n`, 0o644);
}

/** The name of a machine's launcher process (its pid and log files in the machine's run dir). */
export const MACHINE_PROCESS = "machine";

/** Starts the machine's launcher in its cgroup (the machine boots; see awaitMachine). */
export function bootMachine(machine: MachinePlan): BackgroundProcess {
  ensureCgroup(machine.cgroup);
  const f = machineFiles(machine);
  return startProcess(f.runDir, MACHINE_PROCESS, f.launcher, [], {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
  });
}

/** `ssh` arguments that run `command` on the machine as root, its host key checked strictly. */
export function machineSshArgs(lab: LabPlan, machine: MachinePlan, command: string): string[] {
  const access = machineAccess(lab);
  const options = {
    UserKnownHostsFile: access.knownHostsPath,
    StrictHostKeyChecking: "yes",
    BatchMode: "yes",
    ConnectTimeout: "5",
    LogLevel: "ERROR",
  };
  return [
    "-i",
    access.privateKeyPath,
    ...Object.entries(options).flatMap(([key, value]) => ["-o", `${key}=${value}`]),
    `${MACHINE_USER}@${machine.address}`,
    command,
  ];
}

/** Runs `command` on the machine over SSH; resolves its stdout, rejects with its stderr. */
export async function onMachine(
  lab: LabPlan,
  machine: MachinePlan,
  command: string,
  timeoutMs = 60_000,
): Promise<string> {
  try {
    const { stdout } = await execFileAsync("ssh", machineSshArgs(lab, machine, command), {
      timeout: timeoutMs,
      encoding: "utf8",
    });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; code?: number | string };
    throw new Error(
      `machine ${machine.name}: \`${command}\` failed (${err.code}): ${(err.stderr || err.stdout || (e as Error).message).trim()}`,
    );
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the machine's systemd reports `running` (every unit started, none failed), over SSH with
 * its pinned host key. Throws with the failed units when it settles `degraded`, and with the launcher's log
 * when the machine stops.
 */
export async function awaitMachine(
  lab: LabPlan,
  machine: MachinePlan,
  launcher?: BackgroundProcess,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    if (launcher && !isRunning(launcher.pid)) {
      throw new Error(`machine ${machine.name} stopped while booting:\n${logTail(launcher.logPath, 30)}`);
    }
    try {
      const state = (
        await onMachine(lab, machine, "systemctl is-system-running --wait || true", 30_000)
      ).trim();
      if (state === "running") return;
      if (state === "degraded") {
        const failed = await onMachine(lab, machine, "systemctl --failed --no-legend --plain");
        throw new Error(`machine ${machine.name} booted degraded: failed units:\n${failed.trim()}`);
      }
      last = `systemd: ${state}`;
    } catch (e) {
      if (/booted degraded/.test((e as Error).message)) throw e;
      last = (e as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(`machine ${machine.name} not running within ${timeoutMs} ms (last: ${last})`);
    }
    await sleep(250);
  }
}

/** inotify instances per user the machines need: each systemd takes dozens (kind asks for 512 per node). */
const MIN_INOTIFY_INSTANCES = 1024;

/**
 * Raises this machine's `fs.inotify.max_user_instances` to MIN_INOTIFY_INSTANCES when lower (Debian's 128
 * is used up by a lab's kubelets and containerds; a machine whose systemd gets none fails to boot with
 * "Failed to allocate manager object: Too many open files"). Never lowers it.
 */
function ensureInotifyInstances(file = "/proc/sys/fs/inotify/max_user_instances"): void {
  if (Number(fs.readFileSync(file, "utf8").trim()) < MIN_INOTIFY_INSTANCES) {
    fs.writeFileSync(file, `${MIN_INOTIFY_INSTANCES}\n`);
  }
}

/**
 * Boots every machine of the lab (the image at `image`, the test bed's by default) and resolves once
 * each one is running. A lab without machines needs no image (`npm run start:containerized` builds none).
 */
export async function startMachines(lab: LabPlan, image?: string): Promise<void> {
  if (lab.machines.length === 0) return;
  const imageRoot = image ?? testbedMachineImage();
  ensureInotifyInstances();
  ensureMachineKey(lab);
  for (const m of lab.machines) prepareMachine(lab, m, imageRoot);
  writeKnownHosts(lab);
  await Promise.all(lab.machines.map((m) => awaitMachine(lab, m, bootMachine(m))));
}

/**
 * Pulls the plug: every process of the machine is killed at once, as a power cut or a VM stopped for good
 * would. Its disk (the overlay) stays; `bootMachine` + `awaitMachine` start it again.
 */
export async function powerOffMachine(machine: MachinePlan): Promise<void> {
  await removeCgroupTree(machine.cgroup);
}

/** What makes a machine itself and survives its reinstall: its SSH host key and machine-id. */
const MACHINE_IDENTITY = [
  "etc/ssh/ssh_host_ed25519_key",
  "etc/ssh/ssh_host_ed25519_key.pub",
  "etc/machine-id",
];

/**
 * Reinstalls a machine from the image, as an operator re-images a server: the power is cut, everything it
 * wrote is wiped but its identity (host key, machine-id: the estate's pinned key stays true), and it
 * boots again. Resolves once it is running.
 */
export async function reinstallMachine(
  lab: LabPlan,
  machine: MachinePlan,
  imageRoot = testbedMachineImage(),
): Promise<void> {
  await powerOffMachine(machine);
  const f = machineFiles(machine);
  const identity = MACHINE_IDENTITY.map((file) => {
    const at = path.join(f.root, file);
    return { file, data: fs.readFileSync(at), mode: fs.statSync(at).mode & 0o777 };
  });
  unmountBelow([f.root]);
  fs.rmSync(f.upper, { recursive: true, force: true });
  fs.rmSync(f.work, { recursive: true, force: true });
  for (const { file, data, mode } of identity) writeFile(path.join(f.upper, file), data, mode);
  for (const dir of ["etc", "etc/ssh"]) fs.chmodSync(path.join(f.upper, dir), 0o755);
  prepareMachine(lab, machine, imageRoot);
  await awaitMachine(lab, machine, bootMachine(machine));
}

/** Whether anything of the machine runs. */
export const machineRunning = (machine: MachinePlan): boolean => processesIn(machine.cgroup).length > 0;

/** What of the lab's machines nspawn left on this machine outside the lab's dirs and cgroups. */
export function machineLeftovers(lab: LabPlan): string[] {
  return lab.machines
    .map((m) => path.join(NSPAWN_RUN_DIR, m.nspawnName))
    .filter((dir) => fs.existsSync(dir))
    .map((dir) => `directory ${dir}`);
}

/** Removes what nspawn may leave of the lab's (stopped) machines outside the lab's dirs; unmounts their roots. */
export function cleanUpMachines(lab: LabPlan): void {
  unmountBelow(lab.machines.map((m) => machineFiles(m).root));
  for (const m of lab.machines)
    fs.rmSync(path.join(NSPAWN_RUN_DIR, m.nspawnName), { recursive: true, force: true });
}
