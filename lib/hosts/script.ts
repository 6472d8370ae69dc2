import { shq } from "./shell";

/** One named step of a host script; failures inside it are reported under its name. */
export interface ScriptStep {
  /** Short kebab-case name shown in messages, e.g. `check-ports`. */
  readonly name: string;
  /** Bash lines run with `set -euo pipefail`; call `pk_fail "reason"` for explained failures. */
  readonly body: string;
}

/** Everything a host script is made of. */
export interface HostScriptSpec {
  /** Host (member) name every message is prefixed with. */
  readonly host: string;
  /** What the script does, for the header comment. */
  readonly purpose: string;
  /** Bash function definitions the steps use (no side effects when defined). */
  readonly functions?: readonly string[];
  readonly steps: readonly ScriptStep[];
}

/** Prefix of every message our scripts print, so they can be found in Pulumi's logs. */
export const MESSAGE_PREFIX = "pulumi-karmada";

const PRELUDE = `set -euo pipefail
set -o errtrace
umask 077
pk_fail() {
  printf '${MESSAGE_PREFIX}: %s: %s: %s\\n' "\${PK_HOST}" "\${PK_STEP}" "$*" >&2
  exit 1
}
pk_on_error() {
  printf '${MESSAGE_PREFIX}: %s: %s: command failed (exit %s, line %s): %s\\n' "\${PK_HOST}" "\${PK_STEP}" "$1" "$2" "$3" >&2
}
trap 'pk_on_error "$?" "\${LINENO}" "\${BASH_COMMAND}"' ERR
pk_step() {
  PK_STEP=$1
  printf '${MESSAGE_PREFIX}: %s: %s (at %ss)\\n' "\${PK_HOST}" "\${PK_STEP}" "\${SECONDS}"
}
pk_alive() {
  # pk_alive PIDFILE: its process runs (a zombie, never reaped by PID 1 of many containers, is gone)
  [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null && ! grep -qs '^State:[[:space:]]*Z' "/proc/$(cat "$1")/status"
}`;

/**
 * Bash functions for private material on a host (keys, kubeconfigs, etcd snapshots): directories 0700,
 * files 0600, both owned by the user the script runs as. That is the user the services run as: the
 * systemd units carry no `User=` (root, and scripts must run as root to manage them), and the supervisor
 * starts each service as the login user that ran its script. Include it in `functions` of scripts that
 * write private files (only those: a change here re-runs every command that includes it).
 */
export const PRIVATE_FILE_FUNCTIONS = `pk_private_dir() {
  # pk_private_dir DIR...: creates each DIR (with missing parents), mode 0700, owned by this user
  mkdir -p "$@" && chmod 0700 "$@" && chown "$(id -u):$(id -g)" "$@"
}
pk_owned_file() {
  # pk_owned_file MODE FILE...: sets MODE (0600 for private files), owned by this user
  local mode=$1
  shift
  chmod "\${mode}" "$@" && chown "$(id -u):$(id -g)" "$@"
}`;

/**
 * Renders a bash script: strict mode, private umask (files we write are 0600/0700 unless chmod'ed),
 * and an error trap so any failing command is reported as `pulumi-karmada: <host>: <step>: <reason>`
 * on stderr. Secrets never appear in scripts: they arrive on stdin or sit in files.
 */
export function renderScript(spec: HostScriptSpec): string {
  const parts = [
    "#!/usr/bin/env bash",
    `# ${MESSAGE_PREFIX}: ${spec.purpose} on ${spec.host} (generated; safe to re-run)`,
    PRELUDE,
    `PK_HOST=${shq(spec.host)}`,
    "PK_STEP=start",
    ...(spec.functions ?? []),
    ...spec.steps.map((step) => `pk_step ${shq(step.name)}\n${step.body.trim()}`),
    `printf '${MESSAGE_PREFIX}: %s: done (%ss)\\n' "\${PK_HOST}" "\${SECONDS}"`,
  ];
  return `${parts.join("\n")}\n`;
}

/**
 * The command line that runs `script` on a host over SSH. The remote login shell may be `sh`, so the
 * script is handed to bash explicitly; its stdin stays free for secret material.
 */
export function remoteInvocation(script: string): string {
  return `bash -c ${shq(script)} ${MESSAGE_PREFIX}`;
}
