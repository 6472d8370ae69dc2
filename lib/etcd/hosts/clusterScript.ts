import { renderScript } from "../../hosts/script";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { memberFiles } from "./etcdConfigFile";
import { etcdFunctions, indent, pollUntil } from "./etcdctl";
import { EtcdHostsSettings } from "./settings";
import { clientEndpoints, peerUrl } from "./urls";

/** Seconds the cluster gets to become healthy after its members were started. */
const CLUSTER_HEALTH_TIMEOUT_SECONDS = 180;

/** Seconds the remaining members get to be healthy again before the next removal. */
const REMOVAL_HEALTHY_SECONDS = 30;

/** Seconds `member remove` is retried (etcd refuses while a member has just (re)connected). */
const MEMBER_REMOVE_TIMEOUT_SECONDS = 60;

/**
 * Runs on one member after every member step: waits until all listed members are healthy, then
 * removes members no longer listed — one at a time, each only while every remaining member is healthy
 * (so a removal can never be the step that loses quorum) — and checks the final membership.
 */
export function clusterScript(settings: EtcdHostsSettings, anchor: ResolvedHost): string {
  const desired = clientEndpoints(settings).join(",");
  const desiredPeers = settings.members.map((m) => peerUrl(settings, m)).join(" ");
  const wanted = settings.members.length;
  const allHealthy = `pk_etcdctl --endpoints="\${desired}" endpoint health >/dev/null 2>&1`;
  const removed = `{ out=$(pk_etcdctl --endpoints="\${desired}" member remove "\${id}" 2>&1) || [[ "\${out}" == *"member not found"* ]]; }`;
  return renderScript({
    host: anchor.name,
    purpose: "etcd cluster health and membership",
    functions: [etcdFunctions(memberFiles(settings, anchor))],
    steps: [
      {
        name: "wait-healthy",
        body: `desired=${shq(desired)}
${pollUntil(allHealthy, CLUSTER_HEALTH_TIMEOUT_SECONDS)}
if [ "\${polled}" = no ]; then
  bad=$(pk_etcdctl --endpoints="\${desired}" endpoint health 2>&1 | grep -v ' is healthy' | sed -n 's/^\\(https:[^ ]*\\).*/\\1/p' | sort -u | tr '\\n' ' ' || true)
  pk_fail "members not healthy after ${CLUSTER_HEALTH_TIMEOUT_SECONDS}s: \${bad:-unknown}"
fi
echo "all ${wanted} members healthy"`,
      },
      {
        name: "remove-members",
        body: `desired_peers=${shq(desiredPeers)}
members=$(pk_etcdctl --endpoints="\${desired}" member list)
extra=$(printf '%s\\n' "\${members}" | awk -F', ' -v keep="\${desired_peers}" '
  BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) wanted[k[i]] = 1 }
  $4 != "" && !($4 in wanted) { print $1 "|" $3 "|" $4 }')
while IFS='|' read -r id name peer <&3; do
  [ -n "\${id}" ] || continue
${indent(pollUntil(allHealthy, REMOVAL_HEALTHY_SECONDS))}
  if [ "\${polled}" = no ]; then
    pk_fail "refusing to remove member \${name:-\${id}}: not every remaining member is healthy"
  fi
  out=""
${indent(pollUntil(removed, MEMBER_REMOVE_TIMEOUT_SECONDS))}
  [ "\${polled}" = yes ] || pk_fail "member remove \${name:-\${id}} failed for ${MEMBER_REMOVE_TIMEOUT_SECONDS}s: $(printf '%s' "\${out}" | tail -n 1)"
  echo "removed member \${name:-\${id}} (\${peer})"
done 3<<<"\${extra}"`,
      },
      {
        name: "verify-membership",
        body: `members=$(pk_etcdctl --endpoints="\${desired}" member list)
voters=$(printf '%s\\n' "\${members}" | awk -F', ' '$6 == "false" {n++} END {print n+0}')
learners=$(printf '%s\\n' "\${members}" | awk -F', ' '$6 == "true" {n++} END {print n+0}')
if [ "\${voters}" -ne ${wanted} ] || [ "\${learners}" -ne 0 ]; then
  pk_fail "expected ${wanted} voting members and no learners, found \${voters} voters and \${learners} learners"
fi
pk_etcdctl --endpoints="\${desired}" endpoint health >/dev/null 2>&1 || pk_fail "cluster unhealthy after membership changes"
echo "cluster has ${wanted} healthy voting members"`,
      },
    ],
  });
}
