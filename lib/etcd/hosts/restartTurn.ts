import { shq } from "../../hosts/shell";
import { indent, pollUntil } from "./etcdctl";

/** Seconds a member waits for its turn to restart (another member restarting holds it). */
const RESTART_TURN_TIMEOUT_SECONDS = 300;

/** Seconds the other voting members get to be healthy before this one goes down for a restart. */
const RESTART_PEERS_HEALTHY_SECONDS = 60;

/**
 * Lifetime of the turn's lease. The holder releases it once it is healthy again (or fails); the lease
 * only matters when the script dies holding it, and covers the longest a holder may take: peers healthy,
 * its own start and health.
 */
const RESTART_TURN_TTL_SECONDS = 180;

/** Key (attached to the holder's lease) that the member restarting now holds. */
const RESTART_TURN_KEY = "pulumi-karmada/etcd-restart-turn";

/**
 * Bash functions of the member script: `pk_restart_turn` waits until this member may restart, so that
 * members whose commands run at the same time restart one at a time, each healthy again before the next
 * goes down; `pk_restart_done` gives the turn back (also on exit). The turn is a key created in a
 * transaction only when absent, on the etcd cluster itself, attached to a lease that expires by itself
 * if the script dies holding it. Without other members, or when they have no quorum (nothing left to
 * protect), a restart takes no turn. Uses `others` and `my_peer` (set by the decide step).
 */
export function restartTurnFunctions(): string {
  const key = shq(RESTART_TURN_KEY);
  const peersHealthy = `pk_etcdctl --endpoints="\${turn_peers}" endpoint health >/dev/null 2>&1`;
  return `pk_restart_done() {
  if [ -n "\${turn_lease:-}" ]; then
    pk_etcdctl --endpoints="\${others}" lease revoke "\${turn_lease}" >/dev/null 2>&1 || true
    turn_lease=""
  fi
}
pk_restart_turn() {
  turn_lease=""
  [ -n "\${others}" ] || return 0
  turn_lease=$(pk_etcdctl --endpoints="\${others}" lease grant ${RESTART_TURN_TTL_SECONDS} 2>/dev/null | awk '{print $2}') || turn_lease=""
  if [ -z "\${turn_lease}" ]; then
    echo "the other members have no quorum: restarting without waiting for a turn"
    return 0
  fi
  trap pk_restart_done EXIT
  local turn_deadline=$((SECONDS + ${RESTART_TURN_TIMEOUT_SECONDS}))
  until [ "$(printf 'create("%s") = "0"\\n\\nput %s %s --lease=%s\\n\\n\\n' ${key} ${key} "\${my_name}" "\${turn_lease}" | pk_etcdctl --endpoints="\${others}" txn 2>/dev/null | head -n 1)" = SUCCESS ]; do
    [ "\${SECONDS}" -lt "\${turn_deadline}" ] || pk_fail "no turn to restart within ${RESTART_TURN_TIMEOUT_SECONDS}s: another member keeps restarting (key ${RESTART_TURN_KEY})"
    sleep 0.2
  done
  # the other voting members must be healthy before this one goes down
  turn_peers=$(pk_etcdctl --endpoints="\${others}" member list 2>/dev/null | awk -F', ' -v me="\${my_peer}" '$6 == "false" && $5 != "" && $4 != me {printf "%s%s", sep, $5; sep = ","}') || turn_peers=""
  if [ -n "\${turn_peers}" ]; then
${indent(indent(pollUntil(peersHealthy, RESTART_PEERS_HEALTHY_SECONDS)))}
    [ "\${polled}" = yes ] || pk_fail "refusing to restart: not every other member is healthy (\${turn_peers})"
  fi
}`;
}
