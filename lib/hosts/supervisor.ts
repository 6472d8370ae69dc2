/**
 * The "supervisor" service runner for hosts without systemd (containers, test beds): a small bash
 * program that starts a command, records pid files, appends its output to a log, and restarts it when
 * it exits — or, for periodic jobs, runs it again after the interval — until a stop flag appears.
 */

/** Where {@link supervisorProgram} is installed, before rooting. */
export const SUPERVISOR_PATH = "/usr/local/lib/pulumi-karmada/supervise";

/**
 * Source of the supervisor. Usage: `supervise STATE_DIR LOG_FILE DELAY_SECONDS -- COMMAND [ARGS…]`.
 * Writes `STATE_DIR/supervisor.pid` and `STATE_DIR/child.pid`; SIGTERM stops the child and exits.
 */
export function supervisorProgram(): string {
  return `#!/usr/bin/env bash
# pulumi-karmada supervisor: keeps one command running (or re-runs it every DELAY seconds).
set -uo pipefail
if [ "$#" -lt 5 ] || [ "$4" != "--" ]; then
  echo "usage: supervise STATE_DIR LOG_FILE DELAY_SECONDS -- COMMAND [ARGS...]" >&2
  exit 2
fi
state_dir=$1
log_file=$2
delay=$3
shift 4
child=0
stopping() { [ -e "\${state_dir}/stop" ]; }
on_term() {
  touch "\${state_dir}/stop"
  if [ "\${child}" -gt 0 ]; then
    kill -TERM "\${child}" 2>/dev/null
    wait "\${child}" 2>/dev/null
  fi
  rm -f "\${state_dir}/child.pid" "\${state_dir}/supervisor.pid"
  exit 0
}
trap on_term TERM INT
echo "$$" > "\${state_dir}/supervisor.pid"
while ! stopping; do
  "$@" >> "\${log_file}" 2>&1 &
  child=$!
  echo "\${child}" > "\${state_dir}/child.pid"
  wait "\${child}"
  rc=$?
  child=0
  rm -f "\${state_dir}/child.pid"
  stopping && break
  printf '%s supervise: %s exited with %s; next start in %ss\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" "\${rc}" "\${delay}" >> "\${log_file}"
  sleep "\${delay}" &
  wait "$!"
done
rm -f "\${state_dir}/supervisor.pid"
`;
}
