import { PRIVATE_FILE_FUNCTIONS, renderScript } from "../../hosts/script";
import { serviceCommands } from "../../hosts/serviceRunner";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { etcdConfigYaml, memberFiles } from "./etcdConfigFile";
import { EtcdClusterContext } from "./context";
import { etcdFunctions, indent, pollUntil, waitForPort } from "./etcdctl";
import { restartTurnFunctions } from "./restartTurn";
import { restoreBody } from "./restore";
import { etcdServiceSpec } from "./service";
import { EtcdHostsSettings } from "./settings";
import { clientUrl, initialCluster, peerUrl } from "./urls";

/**
 * Seconds the "does a cluster answer?" probe waits: a member without quorum never answers (etcd serves
 * clients only once it has joined a quorum), so this is what a forming or quorum-less cluster costs.
 */
const PROBE_TIMEOUT_SECONDS = 5;

/**
 * The probe's wait for a bootstrap member with an empty data dir. A running cluster answers within
 * milliseconds; one that does not answer is being formed by members starting at this very moment (a
 * new cluster's members all start at once), and for a bootstrap member that never ran, starting with
 * state `new` is right either way: etcd itself refuses it if the cluster knows it as started.
 */
const BOOTSTRAP_PROBE_TIMEOUT_SECONDS = 1;

/** Seconds `member add` is retried while etcd calls the cluster unhealthy (recent reconfiguration). */
const MEMBER_ADD_TIMEOUT_SECONDS = 60;

/** Seconds a learner gets to catch up before promotion is given up. */
const PROMOTE_TIMEOUT_SECONDS = 180;

/** Seconds a (re)started member of a running cluster gets to report healthy. */
const MEMBER_HEALTHY_SECONDS = 60;

/**
 * Seconds between TERM and KILL when a member is stopped to be restored in place. A leader stopping
 * while its peers stop too waits up to 7 s (etcd's request timeout) to hand over its leadership to one
 * of them; its data is moved aside only as a fallback, and etcd's WAL is crash-safe, so it is not
 * waited for.
 */
const RESTORE_STOP_GRACE_SECONDS = 1;

/** Bash stopping a member that is about to be restored in place (see RESTORE_STOP_GRACE_SECONDS). */
function restoreStop(settings: EtcdHostsSettings, member: ResolvedHost): string {
  const spec = { ...etcdServiceSpec(settings, member), stopGraceSeconds: RESTORE_STOP_GRACE_SECONDS };
  return serviceCommands(settings.serviceManager, spec, member.root).stop;
}

/**
 * Starts one member, deciding at run time how (so re-running after any failure converges). Every
 * member's script runs at the same time as the others' (they do not wait for each other):
 * - `restoreFrom.replaceData` and the data dir holds another cluster's data (its config names another
 *   token) → check the snapshot, stop the member, move its data aside, restore (a rollback in place);
 * - data dir initialised → just (re)start it (a member removed from the cluster has its data moved
 *   aside first and joins anew); a configuration change restarts it only in its turn (a key with a
 *   lease in etcd itself), so members restart one at a time and each is healthy before the next;
 * - the cluster answers and lists this member as never started → start with state `existing`;
 * - the cluster answers without this member → `member add --learner` once the cluster has a quorum and
 *   no other learner is pending (a host joining in the same update: etcd admits one learner at a time,
 *   so joins take turns), start with state `existing`, wait until caught up, `member promote`;
 * - nobody answers and this member is a bootstrap member → restore from `restoreFrom`, or bootstrap
 *   with state `new` (a new cluster's members all start at once); any other member refuses, so it can
 *   never found a second cluster.
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
  const listedPeers = settings.members.map((m) => peerUrl(settings, m)).join(" ");
  const stamp = "$(date -u +%Y%m%dT%H%M%SZ)";
  const otherMembers = settings.members.filter((m) => m.name !== member.name);
  const anyOpen = otherMembers.length
    ? otherMembers.map((m) => `pk_port_open ${shq(m.address)} ${settings.clientPort}`).join(" || ")
    : "false";
  // Only a bumped counter changes the script (so existing stacks re-run nothing when upgrading).
  const repair = settings.repairGeneration
    ? `# repair generation ${settings.repairGeneration}: a new value re-runs this step on every member\n`
    : "";
  const header = `${repair}data_dir=${shq(files.dataDir)}
conf=${shq(files.configFile)}
my_name=${shq(member.name)}
my_peer=${shq(peerUrl(settings, member))}
my_client=${shq(clientUrl(settings, member))}
others=${shq(others.join(","))}
is_bootstrap=${isBootstrap ? "yes" : "no"}
initialized=no
if [ -d "\${data_dir}/member/wal" ]; then initialized=yes; fi
`;
  const probe = `probe_timeout=${PROBE_TIMEOUT_SECONDS}
if [ "\${initialized}" = no ] && [ "\${is_bootstrap}" = yes ]; then probe_timeout=${BOOTSTRAP_PROBE_TIMEOUT_SECONDS}; fi
reachable=no
members=""
# Fast path: when no other member even accepts TCP, nobody can answer; skip the probe's timeout.
listening=no
if ${anyOpen}; then listening=yes; fi
if [ "\${listening}" = yes ] && members=$(pk_etcdctl --endpoints="\${others}" --dial-timeout="\${probe_timeout}s" --command-timeout="\${probe_timeout}s" member list 2>/dev/null); then reachable=yes; fi
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
fi`;
  const tail = `if [ "\${initialized}" = no ] && [ -n "$(find "\${data_dir}" -mindepth 1 -maxdepth 1 ! -name lost+found 2>/dev/null | head -n 1)" ]; then
  pk_fail "data dir \${data_dir} is not empty but holds no etcd member"
fi
echo "mode: \${mode}"`;
  // With replaceData, a member holding another cluster's data is restored without asking the cluster
  // (it is about to leave it); its config keeps the token it started with, so another token tells.
  const decideMode = settings.restoreReplacesData
    ? `reachable=no
members=""
in_place=no
data_token=""
if [ "\${initialized}" = yes ] && [ "\${is_bootstrap}" = yes ] && [ -f "\${conf}" ]; then
  data_token=$(sed -n 's/^initial-cluster-token: //p' "\${conf}")
  if [ "\${data_token}" != ${shq(context.token)} ]; then in_place=yes; fi
fi
if [ "\${in_place}" = yes ]; then
  mode="restore"
  echo "this member holds the data of cluster \${data_token}: restoring it in place into cluster "${shq(context.token)}
else
${indent(probe)}
fi`
    : probe;
  const decide = `${header}${decideMode}
${tail}`;
  const join = `if [ "\${mode}" = join ]; then
  # Another host may be joining in this same update: etcd admits one learner at a time, and a new
  # member only once every voter has been connected for 5s ("unhealthy cluster"). Wait for the turn.
  added=""
  last_error=""
  add_deadline=$((SECONDS + ${MEMBER_ADD_TIMEOUT_SECONDS}))
  learner_deadline=$((SECONDS + ${PROMOTE_TIMEOUT_SECONDS}))
  while :; do
    if printf '%s\\n' "\${members}" | awk -F', ' -v p="\${my_peer}" '$4 == p {f = 1} END {exit !f}'; then
      added="added by an earlier attempt"
      break
    fi
    pending=$(printf '%s\\n' "\${members}" | awk -F', ' '$6 == "true" {print ($3 != "" ? $3 : $1); exit}')
    if [ -n "\${pending}" ]; then
      if [ "\${SECONDS}" -ge "\${learner_deadline}" ]; then
        pk_fail "member \${pending} is still a learner after ${PROMOTE_TIMEOUT_SECONDS}s: a membership change is in progress; finish it first"
      fi
      add_deadline=$((SECONDS + ${MEMBER_ADD_TIMEOUT_SECONDS}))
    else
      # A voter that is not in the host list and does not answer belongs to a host that is gone (one
      # listed instead of it, \`replaces\`): etcd admits no member while a voter is unreachable, and the
      # cluster step would remove it anyway, so it goes first. With a majority left that is always safe.
      while IFS='|' read -r gone_id gone_name gone_client; do
        [ -n "\${gone_id}" ] || continue
        if [ -n "\${gone_client}" ] && pk_etcdctl --endpoints="\${gone_client}" endpoint health >/dev/null 2>&1; then continue; fi
        pk_etcdctl --endpoints="\${others}" member remove "\${gone_id}" >/dev/null
        echo "removed member \${gone_name:-\${gone_id}}: not in the host list and not answering (its host is gone)"
      done < <(printf '%s\\n' "\${members}" | awk -F', ' -v listed=${shq(listedPeers)} '
        BEGIN { n = split(listed, p, " "); for (i = 1; i <= n; i++) keep[p[i]] = 1 }
        $6 == "false" && !($4 in keep) { print $1 "|" $3 "|" $5 }')
      if listed=$(pk_etcdctl --endpoints="\${others}" member list 2>/dev/null); then members=\${listed}; fi
      voters=$(printf '%s\\n' "\${members}" | awk -F', ' '$6 == "false" && $5 != "" {printf "%s%s", sep, $5; sep=","}')
      total=$(printf '%s\\n' "\${members}" | awk -F', ' '$6 == "false" {n++} END {print n+0}')
      healthy=$(pk_etcdctl --endpoints="\${voters}" endpoint health 2>&1 | grep -c ' is healthy' || true)
      if [ "\${healthy}" -lt $((total / 2 + 1)) ] || [ $((healthy + 1)) -lt $(((total + 1) / 2 + 1)) ]; then
        pk_fail "only \${healthy} of \${total} members are healthy; adding a member now could lose quorum"
      fi
      if added=$(pk_etcdctl --endpoints="\${voters}" member add "\${my_name}" --peer-urls="\${my_peer}" --learner 2>&1); then break; fi
      last_error=\${added}
      added=""
      if [ "\${SECONDS}" -ge "\${add_deadline}" ]; then
        pk_fail "etcdctl member add --learner failed for ${MEMBER_ADD_TIMEOUT_SECONDS}s: $(printf '%s' "\${last_error}" | tail -n 1)"
      fi
    fi
    sleep 0.5
    if listed=$(pk_etcdctl --endpoints="\${others}" member list 2>/dev/null); then members=\${listed}; fi
  done
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
        restoreBody(
          settings,
          member,
          files,
          context,
          settings.restoreFrom,
          settings.restoreReplacesData ? restoreStop(settings, member) : undefined,
        ),
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
  pk_restart_turn
  echo "configuration changed: restarting etcd"
${indent(service.restart)}
elif [ "\${was_active}" = no ]; then
${indent(service.start)}
fi
${waitForPort(member.address, settings.peerPort, 30, `etcd did not start listening on ${member.address}:${settings.peerPort} within 30s (log: ${settings.serviceManager === "systemd" ? "journalctl -u pk-etcd" : files.logFile})`)}`;
  // a run cut between a joining member's start and its promotion leaves a learner with data: the next
  // run finds it initialised ("run"), and a learner never reports healthy, so it is promoted then too
  const promote = `my_id=""
if [ "\${mode}" = existing ] || { [ "\${mode}" = run ] && [ "\${reachable}" = yes ]; }; then
  my_id=$(pk_etcdctl --endpoints="\${others}" member list 2>/dev/null | awk -F', ' -v p="\${my_peer}" '$4 == p && $6 == "true" {print $1}' || true)
fi
if [ -n "\${my_id}" ]; then
${indent(pollUntil(`pk_etcdctl --endpoints="\${others}" member promote "\${my_id}" >/dev/null 2>&1`, PROMOTE_TIMEOUT_SECONDS))}
  [ "\${polled}" = yes ] || pk_fail "learner did not catch up with the leader within ${PROMOTE_TIMEOUT_SECONDS}s; not promoted"
  echo "caught up and promoted to a voting member"
fi`;
  const health = `if [ "\${mode}" != new ] && [ "\${mode}" != restore ] && [ "\${reachable}" = yes ]; then
${indent(pollUntil(`pk_etcdctl --endpoints="\${my_client}" endpoint health >/dev/null 2>&1`, MEMBER_HEALTHY_SECONDS))}
  [ "\${polled}" = yes ] || pk_fail "member is not healthy ${MEMBER_HEALTHY_SECONDS}s after start"
  echo "member is healthy"
else
  echo "started; the cluster becomes healthy once a quorum of bootstrap members runs"
fi
pk_restart_done`;
  return renderScript({
    host: member.name,
    purpose: "start etcd member (bootstrap, join, or restore)",
    functions: [etcdFunctions(files), PRIVATE_FILE_FUNCTIONS, restartTurnFunctions()],
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
