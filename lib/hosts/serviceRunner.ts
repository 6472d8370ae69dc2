import { rooted, shq } from "./shell";
import {
  DEFAULT_STOP_GRACE_SECONDS,
  ServiceManager,
  ServiceSpec,
  checkServiceSpec,
  systemdServiceUnit,
  systemdTimerUnit,
} from "./service";
import { SUPERVISOR_PATH, supervisorProgram } from "./supervisor";

/**
 * Bash snippets that manage one service with the chosen runner. Each is idempotent: installing an
 * unchanged unit does nothing, starting a running service does nothing, stopping a stopped one too.
 */
export interface ServiceCommands {
  /** Writes the unit files / supervisor program when they differ from what is on the host. */
  readonly install: string;
  /** Starts the service (or the timer of a periodic job) unless already running. */
  readonly start: string;
  /** Restarts it (after a configuration change). */
  readonly restart: string;
  /** Stops it; succeeds when it is not running or not installed. */
  readonly stop: string;
  /** Stops it (with the spec's remove grace) and removes its unit files. */
  readonly remove: string;
  /** A bash condition, true while the service (or timer) is active. */
  readonly isActive: string;
}

/**
 * Bash writing `content` to `path` with `mode` only when it differs (no rewrite means no restart); sets
 * `service_changed=yes` when it wrote. The content travels in a quoted heredoc, so nothing in it expands.
 * The temporary file is this script's own (`.tmp.<pid>`): several services of one host share a file
 * (the supervisor program) and their scripts run at the same time.
 */
export function writeFileIfChanged(path: string, content: string, mode: string): string {
  const marker = "PK_FILE_EOF";
  if (content.split("\n").includes(marker)) throw new Error(`content of ${path} contains the heredoc marker`);
  const tmp = `${shq(`${path}.tmp.`)}"$$"`;
  return [
    `mkdir -p "$(dirname ${shq(path)})"`,
    `cat > ${tmp} <<'${marker}'`,
    `${content.replace(/\n$/, "")}`,
    marker,
    `if cmp -s ${tmp} ${shq(path)}; then`,
    `  rm -f ${tmp}`,
    `else`,
    `  chmod ${mode} ${tmp}`,
    `  mv -f ${tmp} ${shq(path)}`,
    `  service_changed=yes`,
    `fi`,
  ].join("\n");
}

/** Seconds `spec` gets between TERM and KILL. */
const stopGrace = (spec: ServiceSpec): number => spec.stopGraceSeconds ?? DEFAULT_STOP_GRACE_SECONDS;

/** Seconds `spec` gets between TERM and KILL when it is removed for good. */
const removeGrace = (spec: ServiceSpec): number => spec.removeGraceSeconds ?? stopGrace(spec);

function systemdCommands(spec: ServiceSpec, root: string): ServiceCommands {
  const periodic = spec.intervalSeconds !== undefined;
  const unitDir = rooted(root, "/etc/systemd/system");
  const active = periodic ? `${spec.name}.timer` : `${spec.name}.service`;
  const files = [`${unitDir}/${spec.name}.service`, ...(periodic ? [`${unitDir}/${spec.name}.timer`] : [])];
  const install = [
    "service_changed=no",
    writeFileIfChanged(files[0], systemdServiceUnit(spec), "0644"),
    ...(periodic ? [writeFileIfChanged(files[1], systemdTimerUnit(spec), "0644")] : []),
    `if [ "\${service_changed}" = yes ]; then systemctl daemon-reload; fi`,
  ].join("\n");
  const isActive = `systemctl is-active --quiet ${active}`;
  // units installed before they carried TimeoutStopSec wait systemd's 90 s: past the grace, kill it
  const stopWithin = (grace: number) =>
    [
      `if systemctl cat ${active} >/dev/null 2>&1; then`,
      `  systemctl disable ${active} >/dev/null 2>&1 || true`,
      `  if ! timeout ${grace} systemctl stop ${active} >/dev/null 2>&1; then`,
      `    systemctl kill --signal=SIGKILL ${active} >/dev/null 2>&1 || true`,
      `    systemctl stop ${active}`,
      `  fi`,
      `fi`,
    ].join("\n");
  const stop = stopWithin(stopGrace(spec));
  const start = `systemctl enable ${active} >/dev/null 2>&1\nif ! ${isActive}; then systemctl start --no-block ${active}; fi`;
  return {
    install,
    start,
    // not `systemctl restart`: its stop would wait the unit's stop timeout (systemd's 90 s), and an
    // API server holds its watches on TERM for up to its 60 s request timeout
    restart: `${stop}\n${start}`,
    stop,
    // a unit that ended failed (e.g. killed at a shutdown) stays listed until its failure is reset
    remove: `${stopWithin(removeGrace(spec))}\nrm -f ${files.map(shq).join(" ")}\nsystemctl daemon-reload\nsystemctl reset-failed ${active} >/dev/null 2>&1 || true`,
    isActive,
  };
}

function supervisorCommands(spec: ServiceSpec, root: string): ServiceCommands {
  const program = rooted(root, SUPERVISOR_PATH);
  const state = spec.stateDir;
  const supPid = `${state}/supervisor.pid`;
  const childPid = `${state}/child.pid`;
  // pk_alive (every script's prelude, lib/hosts/script.ts) counts zombies as dead
  const alive = (file: string) => `pk_alive ${shq(file)}`;
  const isActive = alive(supPid);
  const delay = spec.intervalSeconds ?? 1;
  const launch = [program, state, spec.logFile, String(delay), "--", ...spec.exec].map(shq).join(" ");
  const start = [
    `if ! ${isActive}; then`,
    `  rm -f ${shq(`${state}/stop`)}`,
    `  setsid nohup ${launch} </dev/null >/dev/null 2>&1 &`,
    `  for _ in $(seq 1 50); do ${isActive} && break; sleep 0.1; done`,
    `  ${isActive} || pk_fail ${shq(`supervisor for ${spec.name} did not start (log: ${spec.logFile})`)}`,
    `fi`,
  ].join("\n");
  // TERM (the supervisor passes it on to the program and exits after it; a program whose supervisor is
  // gone gets it directly), then KILL whatever still runs after the grace
  const stopWithin = (grace: number) =>
    [
      `touch ${shq(`${state}/stop`)} 2>/dev/null || true`,
      `if ${isActive}; then`,
      `  kill -TERM "$(cat ${shq(supPid)})" 2>/dev/null || true`,
      `elif ${alive(childPid)}; then`,
      `  kill -TERM "$(cat ${shq(childPid)})" 2>/dev/null || true`,
      `fi`,
      `for _ in $(seq 1 ${grace * 10}); do { ${alive(supPid)} || ${alive(childPid)}; } || break; sleep 0.1; done`,
      `if ${alive(supPid)}; then kill -KILL "$(cat ${shq(supPid)})" 2>/dev/null || true; fi`,
      `if ${alive(childPid)}; then kill -KILL "$(cat ${shq(childPid)})" 2>/dev/null || true; fi`,
      `rm -f ${shq(supPid)} ${shq(childPid)}`,
    ].join("\n");
  const stop = stopWithin(stopGrace(spec));
  return {
    install: [
      "service_changed=no",
      writeFileIfChanged(program, supervisorProgram(), "0755"),
      `mkdir -p ${shq(state)} "$(dirname ${shq(spec.logFile)})"`,
    ].join("\n"),
    start,
    restart: `${stop}\n${start}`,
    stop,
    remove: `${stopWithin(removeGrace(spec))}\nrm -rf ${shq(state)}`,
    isActive,
  };
}

/** The snippets managing `spec` on a host with filesystem `root` under `manager`. */
export function serviceCommands(manager: ServiceManager, spec: ServiceSpec, root: string): ServiceCommands {
  checkServiceSpec(spec);
  return manager === "systemd" ? systemdCommands(spec, root) : supervisorCommands(spec, root);
}
