import { shq } from "../../hosts/shell";
import { MemberFiles } from "./etcdConfigFile";

/**
 * Bash functions every etcd script shares: etcdctl with the member's client certificate, the
 * snapshot tool (etcdutl on 3.5+, `etcdctl snapshot …` on 3.4 where etcdutl does not exist), and a
 * TCP probe.
 */
export function etcdFunctions(files: MemberFiles): string {
  return `PK_BIN=${shq(files.bin)}
PK_PKI=${shq(files.pkiDir)}
pk_etcdctl() {
  ETCDCTL_API=3 "\${PK_BIN}/etcdctl" --cacert="\${PK_PKI}/ca.crt" --cert="\${PK_PKI}/client.crt" \\
    --key="\${PK_PKI}/client.key" --dial-timeout=3s --command-timeout=15s "$@"
}
pk_etcdutl() {
  if [ -x "\${PK_BIN}/etcdutl" ]; then
    "\${PK_BIN}/etcdutl" "$@"
  else
    ETCDCTL_API=3 "\${PK_BIN}/etcdctl" "$@"
  fi
}
pk_port_open() {
  # shellcheck disable=SC2016 # $0/$1 expand in the child bash
  timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}`;
}

/** `text` with every line indented by two spaces (bash nested in a block). */
export function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}

/** Seconds between polls of something that becomes ready on its own (a port, health, a promotion). */
const POLL_SECONDS = 0.2;

/**
 * Bash: `condition` (a command) polled every {@link POLL_SECONDS} until it succeeds or `seconds` have
 * passed; sets `polled=yes` when it succeeded, `polled=no` otherwise. No fixed sleeps: a condition that
 * already holds costs one check.
 */
export function pollUntil(condition: string, seconds: number): string {
  return [
    `polled=no`,
    `poll_deadline=$((SECONDS + ${seconds}))`,
    `while :; do`,
    `  if ${condition}; then polled=yes; break; fi`,
    `  [ "\${SECONDS}" -lt "\${poll_deadline}" ] || break`,
    `  sleep ${POLL_SECONDS}`,
    `done`,
  ].join("\n");
}

/** Bash: wait up to `seconds` for `address:port` to accept TCP connections, else fail with `reason`. */
export function waitForPort(address: string, port: number, seconds: number, reason: string): string {
  return [
    pollUntil(`pk_port_open ${shq(address)} ${port}`, seconds),
    `[ "\${polled}" = yes ] || pk_fail ${shq(reason)}`,
  ].join("\n");
}
