import { PRIVATE_FILE_FUNCTIONS, renderScript } from "../../hosts/script";
import { serviceCommands } from "../../hosts/serviceRunner";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { etcdConfigYaml, memberFiles } from "./config";
import { EtcdClusterContext } from "./context";
import { etcdFunctions, waitForPort } from "./etcdctl";
import { restoreBody } from "./restore";
import { etcdServiceSpec } from "./service";
import { EtcdHostsSettings } from "./settings";
import { clientUrl, initialCluster, peerUrl } from "./urls";

/** Seconds the "does a cluster answer?" probe waits: a member without quorum never answers. */
export const PROBE_TIMEOUT_SECONDS = 5;

/** Seconds `member add` is retried while etcd calls the cluster unhealthy (recent reconfiguration). */
export const MEMBER_ADD_TIMEOUT_SECONDS = 60;

/** Seconds a learner gets to catch up before promotion is given up. */
export const PROMOTE_TIMEOUT_SECONDS = 180;

/**
 * Starts one member, deciding at run time how (so re-running after any failure converges):
 * - data dir initialised → just (re)start it (a member removed from the cluster has its data moved
 *   aside first and joins anew);
 * - the cluster answers and lists this member as never started → start with state `existing`;
 * - the cluster answers without this member → `member add --learner` (only when the cluster has a
 *   quorum and no other learner is pending), start with state `existing`, wait until caught up,
 *   `member promote`;
 * - nobody answers and this member is a bootstrap member → restore from `restoreFrom`, or bootstrap
 *   with state `new`; any other member refuses, so it can never found a second cluster.
 */
export function memberScript(
  settings: EtcdHostsSettings,
  member: ResolvedHost,
  context: EtcdClusterContext,
): string {
  const files = memberFiles(settings, member);
  const service = serviceCommands(settings.serviceManager, etcdServiceSpec(settings, member), member.root);
  const others = settings.members.filter((m) => m.name !== member.name).map((m) => clientUrl(settings, m));
  const isBootstrap = context.bootstrapMembers.includes(member.name);
  const namesByPeer = settings.members.map((m) => `${peerUrl(settings, m)}=${m.name}`).join(" ");
  const stamp = "$(date -u +%Y%m%dT%H%M%SZ)";
  const otherMembers = settings.members.filter((m) => m.name !== member.name);
  const anyOpen = otherMembers.length
    ? otherMembers.map((m) => `pk_port_open ${shq(m.address)} ${settings.clientPort}`).join(" || ")
    : "false";
  // Only a bumped counter changes the script (so existing stacks re-run nothing when upgrading).
  const repair = settings.repairGeneration
    ? `# repair generation ${settings.repairGeneration}: a new value re-runs this step on every member\n`
    : "";
  const decide = `${repair}data_dir=${shq(files.dataDir)}
conf=${shq(files.configFile)}
my_name=${shq(member.name)}
my_peer=${shq(peerUrl(settings, member))}
my_client=${shq(clientUrl(settings, member))}
others=${shq(others.join(","))}
is_bootstrap=${isBootstrap ? "yes" : "no"}
initialized=no
if [ -d "\${data_dir}/member/wal" ]; then initialized=yes; fi
reachable=no
members=""
# Fast path: when no other member even accepts TCP, nobody can answer; skip the probe's timeout.
listening=no
if ${anyOpen}; then listening=yes; fi
if [ "\${listening}" = yes ] && members=$(pk_etcdctl --endpoints="\${others}" --command-timeout=${PROBE_TIMEOUT_SECONDS}s member list 2>/dev/null); then reachable=yes; fi
# member list (simple format): ID, status, name, peer URLs, client URLs, is learner
my_line=$(printf '%s\\n' "\${members}" | awk -F', ' -v p="\${my_peer}" '$4 == p')
if [ "\${initialized}" = yes ] && [ "\${reachable}" = yes ] && [ -z "\${my_line}" ] && ! ${service.isActive}; then
  aside="\${data_dir}.stale-${stamp}"
  mv "\${data_dir}" "\${aside}"
  echo "this member was removed from the cluster; its old data moved aside to \${aside}"
  initialized=no
fi
if [ "\${initialized}" = yes ]; then
  mode="run"
elif [ "\${reachable}" = yes ] && [ -n "\${my_line}" ]; then
  if [ -n "$(printf '%s' "\${my_line}" | awk -F', ' '{print $5}')" ]; then
    pk_fail "the cluster lists this member as started but \${data_dir} is empty: remove it (etcdctl member remove) so it can rejoin"
  fi
  mode="existing"
elif [ "\${reachable}" = yes ]; then
  mode="join"
elif [ "\${is_bootstrap}" = yes ]; then
  mode="${settings.restoreFrom ? "restore" : "new"}"
else
  pk_fail "cannot join: no member answers at \${others}; start the existing members first"
fi
if [ "\${initialized}" = no ] && [ -n "$(find "\${data_dir}" -mindepth 1 -maxdepth 1 ! -name lost+found 2>/dev/null | head -n 1)" ]; then
  pk_fail "data dir \${data_dir} is not empty but holds no etcd member"
fi
echo "mode: \${mode}"`;
  const join = `if [ "\${mode}" = join ]; then
  if printf '%s\\n' "\${members}" | awk -F', ' '$6 == "true" {found=1} END {exit !found}'; then
    pk_fail "another member is still a learner: a membership change is in progress; finish it first"
  fi
  voters=$(printf '%s\\n' "\${members}" | awk -F', ' '$6 == "false" && $5 != "" {printf "%s%s", sep, $5; sep=","}')
  total=$(printf '%s\\n' "\${members}" | awk -F', ' '$6 == "false" {n++} END {print n+0}')
  healthy=$(pk_etcdctl --endpoints="\${voters}" endpoint health 2>&1 | grep -c ' is healthy' || true)
  if [ "\${healthy}" -lt $((total / 2 + 1)) ] || [ $((healthy + 1)) -lt $(((total + 1) / 2 + 1)) ]; then
    pk_fail "only \${healthy} of \${total} members are healthy; adding a member now could lose quorum"
  fi
  # etcd refuses changes until every voter has been connected for 5s ("unhealthy cluster"): retry.
  added=""
  last_error=""
  for _ in $(seq 1 ${MEMBER_ADD_TIMEOUT_SECONDS}); do
    if added=$(pk_etcdctl --endpoints="\${voters}" member add "\${my_name}" --peer-urls="\${my_peer}" --learner 2>&1); then break; fi
    last_error=\${added}
    added=""
    if pk_etcdctl --endpoints="\${others}" member list 2>/dev/null | awk -F', ' -v p="\${my_peer}" '$4 == p {f = 1} END {exit !f}'; then
      added="added by an earlier attempt"
      break
    fi
    sleep 1
  done
  if [ -z "\${added}" ]; then
    pk_fail "etcdctl member add --learner failed for ${MEMBER_ADD_TIMEOUT_SECONDS}s: $(printf '%s' "\${last_error}" | tail -n 1)"
  fi
  members=$(pk_etcdctl --endpoints="\${others}" member list)
  echo "added as a learner: $(printf '%s\\n' "\${added}" | head -n 1)"
  mode="existing"
fi
initial_token=${shq(context.token)}
if [ "\${mode}" = existing ]; then
  initial_state=existing
  initial_cluster=$(printf '%s\\n' "\${members}" | awk -F', ' -v me="\${my_name}" -v mp="\${my_peer}" -v known=${shq(namesByPeer)} '
    BEGIN { n = split(known, pairs, " "); for (i = 1; i <= n; i++) { eq = index(pairs[i], "="); name[substr(pairs[i], eq + 1)] = substr(pairs[i], 1, eq - 1) } }
    { nm = $3; if ($4 == mp) nm = me; if (nm == "" && ($4 in name)) nm = name[$4]; if (nm == "") nm = "member-" $1
      printf "%s%s=%s", sep, nm, $4; sep = "," }')
elif [ "\${mode}" = run ] && [ -f "\${conf}" ]; then
  # etcd reads initial-cluster-* only before its first start: keep what this member started with, so
  # a new token (a restore's record replaced) rewrites no config and restarts no running member
  initial_state=$(sed -n 's/^initial-cluster-state: //p' "\${conf}")
  initial_cluster=$(sed -n 's/^initial-cluster: //p' "\${conf}")
  initial_token=$(sed -n 's/^initial-cluster-token: //p' "\${conf}")
else
  initial_state=new
  initial_cluster=${shq(initialCluster(settings, context.bootstrapMembers))}
fi`;
  const restore = settings.restoreFrom
    ? [
        `if [ "\${mode}" = restore ]; then`,
        restoreBody(settings, member, files, context, settings.restoreFrom),
        `fi`,
      ].join("\n")
    : ":";
  const config = etcdConfigYaml(
    settings,
    member,
    "${initial_token}",
    "${initial_cluster}",
    "${initial_state}",
  );
  const writeConfig = `config_changed=no
mkdir -p "$(dirname "\${conf}")"
desired=$(cat <<PK_EOF
${config}PK_EOF
)
if ! printf '%s\\n' "\${desired}" | cmp -s - "\${conf}"; then
  printf '%s\\n' "\${desired}" > "\${conf}.tmp"
  mv -f "\${conf}.tmp" "\${conf}"
  config_changed=yes
fi
pk_private_dir "\${data_dir}" || pk_fail "cannot create \${data_dir}"`;
  const start = `${service.install}
was_active=no
if ${service.isActive}; then was_active=yes; fi
if [ "\${was_active}" = yes ] && { [ "\${config_changed}" = yes ] || [ "\${service_changed}" = yes ]; }; then
  echo "configuration changed: restarting etcd"
${indent(service.restart)}
elif [ "\${was_active}" = no ]; then
${indent(service.start)}
fi
${waitForPort(member.address, settings.peerPort, 30, `etcd did not start listening on ${member.address}:${settings.peerPort} within 30s (log: ${settings.serviceManager === "systemd" ? "journalctl -u pk-etcd" : files.logFile})`)}`;
  const promote = `my_id=""
if [ "\${mode}" = existing ]; then
  my_id=$(pk_etcdctl --endpoints="\${others}" member list 2>/dev/null | awk -F', ' -v p="\${my_peer}" '$4 == p && $6 == "true" {print $1}' || true)
fi
if [ -n "\${my_id}" ]; then
  promoted=no
  for _ in $(seq 1 ${PROMOTE_TIMEOUT_SECONDS}); do
    if pk_etcdctl --endpoints="\${others}" member promote "\${my_id}" >/dev/null 2>&1; then promoted=yes; break; fi
    sleep 1
  done
  [ "\${promoted}" = yes ] || pk_fail "learner did not catch up with the leader within ${PROMOTE_TIMEOUT_SECONDS}s; not promoted"
  echo "caught up and promoted to a voting member"
fi`;
  const health = `if [ "\${mode}" != new ] && [ "\${mode}" != restore ] && [ "\${reachable}" = yes ]; then
  for _ in $(seq 1 60); do
    if pk_etcdctl --endpoints="\${my_client}" endpoint health >/dev/null 2>&1; then break; fi
    sleep 1
  done
  pk_etcdctl --endpoints="\${my_client}" endpoint health >/dev/null 2>&1 || pk_fail "member is not healthy 60s after start"
  echo "member is healthy"
else
  echo "started; the cluster becomes healthy once a quorum of bootstrap members runs"
fi`;
  return renderScript({
    host: member.name,
    purpose: "start etcd member (bootstrap, join, or restore)",
    functions: [etcdFunctions(files), PRIVATE_FILE_FUNCTIONS],
    steps: [
      { name: "decide", body: decide },
      { name: "join-as-learner", body: join },
      { name: "restore-snapshot", body: restore },
      { name: "write-config", body: writeConfig },
      { name: "start", body: start },
      { name: "promote", body: promote },
      { name: "health", body: health },
    ],
  });
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
