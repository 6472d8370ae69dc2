/**
 * Drift of a service on a host: what a probe over SSH finds (running or stopped, the command line of
 * the running process, the unit file) against what the program planned. `pulumi refresh` records what
 * the probe finds, so a service stopped or a flag edited by hand shows as a diff; `pulumi up` repairs it.
 * The remote-command provider has no read, so without this a host change made by hand stays invisible.
 */
import { createHash } from "crypto";
import { rooted, shq } from "./shell";
import { ServiceManager, ServiceSpec, checkServiceSpec, systemdServiceUnit } from "./service";

/** What the probe reports about one service. */
export interface ObservedService {
  readonly running: boolean;
  /** sha256 of the running process's arguments, one per line; absent when stopped. */
  readonly commandLine?: string;
  /** sha256 of the systemd unit file (absent under the supervisor, "missing" when there is none). */
  readonly unit?: string;
}

// a local binding exported by name, for the drift provider's code (see lib/kube/rest.ts)
/** Marker of the probe's one output line, so login banners or shell noise cannot be mistaken for it. */
const PROBE_MARKER = "pk-observed";
export { PROBE_MARKER };

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The digest the probe computes for a process started with `exec` (`/proc/<pid>/cmdline`, NULs as newlines). */
export const commandLineDigest = (exec: readonly string[]): string =>
  sha256(exec.map((a) => `${a}\n`).join(""));

/** The digest of a unit file written by `writeFileIfChanged` with `content` (one trailing newline). */
export const unitFileDigest = (content: string): string => sha256(`${content.replace(/\n$/, "")}\n`);

/** The state the program plans for `spec`: running its command line (and, under systemd, its unit). */
export function plannedService(manager: ServiceManager, spec: ServiceSpec): ObservedService {
  return {
    running: true,
    commandLine: commandLineDigest(spec.exec),
    ...(manager === "systemd" ? { unit: unitFileDigest(systemdServiceUnit(spec)) } : {}),
  };
}

/**
 * One line a reviewer reads in a refresh or preview diff: `running, command line sha256:1a2b3c4d5e6f,
 * unit sha256:…` or `stopped, unit …`. Short digests: enough to tell two apart, and never secret.
 */
export function describeService(observed: ObservedService): string {
  const short = (digest: string) =>
    /^[0-9a-f]{64}$/.test(digest) ? `sha256:${digest.slice(0, 12)}` : digest;
  const parts = [
    observed.running ? `running, command line ${short(observed.commandLine ?? "unknown")}` : "stopped",
  ];
  if (observed.unit !== undefined) parts.push(`unit ${short(observed.unit)}`);
  return parts.join(", ");
}

/**
 * Bash printing one line `pk-observed <running|stopped> <command-line sha256|-> <unit sha256|-|missing>`
 * for `spec`. Reads only: pid files or systemd's MainPID, `/proc/<pid>/cmdline`, the unit file.
 */
export function serviceProbeScript(manager: ServiceManager, spec: ServiceSpec, root: string): string {
  checkServiceSpec(spec);
  const digest = `sha256sum | cut -d' ' -f1`;
  const findPid =
    manager === "systemd"
      ? [
          `if systemctl is-active --quiet ${shq(`${spec.name}.service`)}; then`,
          `  pid=$(systemctl show -p MainPID --value ${shq(`${spec.name}.service`)})`,
          `  [ "\${pid}" != 0 ] || pid=""`,
          `fi`,
        ]
      : [
          // the supervisor and the program it keeps running are both alive
          `if pk_alive ${shq(`${spec.stateDir}/supervisor.pid`)} && pk_alive ${shq(`${spec.stateDir}/child.pid`)}; then`,
          `  pid=$(cat ${shq(`${spec.stateDir}/child.pid`)})`,
          `fi`,
        ];
  const unitFile = rooted(root, `/etc/systemd/system/${spec.name}.service`);
  const unit =
    manager === "systemd"
      ? `if [ -f ${shq(unitFile)} ]; then unit=$(sha256sum < ${shq(unitFile)} | cut -d' ' -f1); else unit=missing; fi`
      : `unit=-`;
  return [
    `pid=""`,
    ...findPid,
    `if [ -n "\${pid}" ] && [ -r "/proc/\${pid}/cmdline" ]; then`,
    `  state=running`,
    `  cmd=$(tr '\\0' '\\n' < "/proc/\${pid}/cmdline" | ${digest})`,
    `else`,
    `  state=stopped`,
    `  cmd=-`,
    `fi`,
    unit,
    `printf '${PROBE_MARKER} %s %s %s\\n' "\${state}" "\${cmd}" "\${unit}"`,
  ].join("\n");
}

/**
 * Reads the probe's line out of its output. Throws when there is none (the probe did not run), naming
 * what it got instead so the failure explains itself.
 */
export function parseProbeOutput(stdout: string): ObservedService {
  const line = stdout
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.startsWith(`${PROBE_MARKER} `));
  if (line === undefined)
    throw new Error(`the service probe printed no "${PROBE_MARKER}" line: ${stdout.slice(-300)}`);
  const [, state, cmd, unit] = line.split(/\s+/);
  if (state !== "running" && state !== "stopped") throw new Error(`the service probe reported ${state}`);
  return {
    running: state === "running",
    ...(state === "running" && cmd !== "-" ? { commandLine: cmd } : {}),
    ...(unit !== undefined && unit !== "-" ? { unit } : {}),
  };
}
