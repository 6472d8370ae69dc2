import { rooted, shq } from "./shell";
import {
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
  /** Stops it and removes its unit files. */
  readonly remove: string;
  /** A bash condition, true while the service (or timer) is active. */
  readonly isActive: string;
}

/**
 * Bash writing `content` to `path` with `mode` only when it differs (no rewrite means no restart); sets
 * `service_changed=yes` when it wrote. The content travels in a quoted heredoc, so nothing in it expands.
 */
export function writeFileIfChanged(path: string, content: string, mode: string): string {
  const marker = "PK_FILE_EOF";
  if (content.split("\n").includes(marker)) throw new Error(`content of ${path} contains the heredoc marker`);
  return [
    `mkdir -p "$(dirname ${shq(path)})"`,
    `cat > ${shq(`${path}.tmp`)} <<'${marker}'`,
    `${content.replace(/\n$/, "")}`,
    marker,
    `if cmp -s ${shq(`${path}.tmp`)} ${shq(path)}; then`,
    `  rm -f ${shq(`${path}.tmp`)}`,
    `else`,
    `  chmod ${mode} ${shq(`${path}.tmp`)}`,
    `  mv -f ${shq(`${path}.tmp`)} ${shq(path)}`,
    `  service_changed=yes`,
    `fi`,
  ].join("\n");
}

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
  const stop = `if systemctl cat ${active} >/dev/null 2>&1; then systemctl disable --now ${active} >/dev/null 2>&1 || systemctl stop ${active}; fi`;
  return {
    install,
    start: `systemctl enable ${active} >/dev/null 2>&1\nif ! ${isActive}; then systemctl start --no-block ${active}; fi`,
    restart: `systemctl enable ${active} >/dev/null 2>&1\nsystemctl restart --no-block ${active}`,
    stop,
    remove: `${stop}\nrm -f ${files.map(shq).join(" ")}\nsystemctl daemon-reload`,
    isActive,
  };
}

function supervisorCommands(spec: ServiceSpec, root: string): ServiceCommands {
  const program = rooted(root, SUPERVISOR_PATH);
  const state = spec.stateDir;
  const supPid = `${state}/supervisor.pid`;
  const childPid = `${state}/child.pid`;
  // A killed process whose parent never reaps it (PID 1 in many containers) stays a zombie that
  // `kill -0` still finds, so zombies count as dead.
  const alive = (file: string) =>
    `{ [ -f ${shq(file)} ] && kill -0 "$(cat ${shq(file)})" 2>/dev/null && ! grep -qs '^State:[[:space:]]*Z' "/proc/$(cat ${shq(file)})/status"; }`;
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
  const stop = [
    `if ${isActive}; then`,
    `  touch ${shq(`${state}/stop`)}`,
    `  kill -TERM "$(cat ${shq(supPid)})" 2>/dev/null || true`,
    `  for _ in $(seq 1 300); do ${isActive} || break; sleep 0.1; done`,
    `fi`,
    `if ${alive(supPid)}; then kill -KILL "$(cat ${shq(supPid)})" 2>/dev/null || true; fi`,
    `if ${alive(childPid)}; then`,
    `  kill -TERM "$(cat ${shq(childPid)})" 2>/dev/null || true`,
    `  for _ in $(seq 1 100); do ${alive(childPid)} || break; sleep 0.1; done`,
    `  if ${alive(childPid)}; then kill -KILL "$(cat ${shq(childPid)})" 2>/dev/null || true; fi`,
    `fi`,
    `rm -f ${shq(supPid)} ${shq(childPid)}`,
  ].join("\n");
  return {
    install: [
      "service_changed=no",
      writeFileIfChanged(program, supervisorProgram(), "0755"),
      `mkdir -p ${shq(state)} "$(dirname ${shq(spec.logFile)})"`,
    ].join("\n"),
    start,
    restart: `${stop}\n${start}`,
    stop,
    remove: `${stop}\nrm -rf ${shq(state)}`,
    isActive,
  };
}

/** The snippets managing `spec` on a host with filesystem `root` under `manager`. */
export function serviceCommands(manager: ServiceManager, spec: ServiceSpec, root: string): ServiceCommands {
  checkServiceSpec(spec);
  return manager === "systemd" ? systemdCommands(spec, root) : supervisorCommands(spec, root);
}
