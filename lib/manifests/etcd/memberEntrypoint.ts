import { POD_NAME_ENV } from "./flags";
import { ETCD_CERT_SECRET_KEYS } from "./names";

/**
 * How an in-cluster etcd member starts. The pod template is the same for every replica count (a scale
 * change must not restart the running members), so what differs per pod and per moment — this member's
 * name and data directory, the cluster it joins and whether it founds one — is decided by this script at
 * start, from what the cluster answers. The etcd image has a shell but no coreutils: only shell builtins
 * and etcdctl are used, and any "not now" ends the container so that the kubelet's restart back-off is the
 * retry loop (there is no `sleep`).
 */

/**
 * Environment the entrypoint reads (set by the pod template, `etcdMemberEnv` in cluster.ts). Not
 * `ETCDCTL_*`: etcdctl refuses a flag its environment also sets, and operators run
 * `kubectl exec <member> -- etcdctl --cacert=…` in these containers. Not `ETCD_*` either: etcd reads
 * those as its own flags.
 */
export const MEMBER_ENV = {
  /** The pod name, which is the member name. */
  podName: POD_NAME_ENV,
  /** This member's peer URL (`https://<pod>.<headless Service>.<namespace>.svc.<domain>:2380`). */
  peerUrl: "MEMBER_PEER_URL",
  /** The data volume's mount; the data directory is a subdirectory of it. */
  dataMount: "MEMBER_DATA_MOUNT",
  /** File holding `--initial-cluster` of the members that founded the cluster (the bootstrap ConfigMap). */
  bootstrapFile: "MEMBER_BOOTSTRAP_FILE",
  /** The client Service's URL: ready members only. */
  clusterUrl: "MEMBER_CLUSTER_URL",
  /** Directory of the member certificates (`<name>-cert`); the server pair also carries clientAuth. */
  pkiDir: "MEMBER_PKI_DIR",
} as const;

/**
 * Flags the entrypoint adds to the template's (which carry everything else): they depend on the data
 * directory's state and the cluster's answer. Listed for the owned-flags table.
 */
export const ENTRYPOINT_FLAGS = [
  "name",
  "data-dir",
  "initial-advertise-peer-urls",
  "initial-cluster",
  "initial-cluster-state",
] as const;

/**
 * The entrypoint (`sh -c SCRIPT etcd-member FLAGS…`). `etcdctl` reaches the cluster through the client
 * Service, which lists ready members only. Decisions:
 * - the cluster answers and lists this member as started, with data here → plain restart;
 * - data here but the cluster lists this member as never started, or not at all (it was removed, e.g. by
 *   a scale-in, and its claim kept) → that data is stale: it is set aside untouched (the next start uses
 *   `data.<n>`, named in `<mount>/data-dir`) and the member joins as below;
 * - no data and the cluster lists this member as started (its volume was lost) → `member remove` it, then
 *   join as below;
 * - no data and the cluster answers → `member add` unless already listed, start with state `existing`
 *   and the membership etcd just reported (etcd refuses an add that would risk quorum: the container
 *   ends and the kubelet retries);
 * - nobody answers, data here → plain start (a whole-cluster restart: the others come back too);
 * - nobody answers, no data, this member is one of the bootstrap members → found the cluster (state
 *   `new`, the bootstrap membership); any other member ends and retries, so a member added by a scale-out
 *   can never found a second cluster.
 */
export const MEMBER_ENTRYPOINT_SCRIPT = `set -u
me=$${MEMBER_ENV.podName}
peer=$${MEMBER_ENV.peerUrl}
mount=$${MEMBER_ENV.dataMount}
say() { echo "etcd-member $me: $*" >&2; }
# etcdctl against the cluster's ready members; short timeouts, the caller retries by ending
ctl() {
  etcdctl --endpoints="$${MEMBER_ENV.clusterUrl}" --cacert="$${MEMBER_ENV.pkiDir}/${ETCD_CERT_SECRET_KEYS.ca}" \\
    --cert="$${MEMBER_ENV.pkiDir}/${ETCD_CERT_SECRET_KEYS.serverCert}" --key="$${MEMBER_ENV.pkiDir}/${ETCD_CERT_SECRET_KEYS.serverKey}" \\
    --dial-timeout=3s --command-timeout=10s "$@"
}
dir=data
if [ -f "$mount/data-dir" ]; then read -r dir < "$mount/data-dir"; fi
has_data() { [ -d "$mount/$dir/member" ]; }
set_aside() {
  n=\${dir#data}
  n=\${n#.}
  n=$((\${n:-0} + 1))
  say "$1: $mount/$dir is kept as it is; this member starts afresh in $mount/data.$n"
  dir=data.$n
  echo "$dir" > "$mount/data-dir" || exit 1
}
# this member's entry in the member list: sets status (started, unstarted or empty) and id
find_self() {
  status=
  id=
  while IFS=', ' read -r m_id m_status _ m_peer _; do
    if [ "$m_peer" = "$peer" ]; then
      id=$m_id
      status=$m_status
    fi
  done <<EOF
$members
EOF
}
# --initial-cluster of the listed members (never-started ones have no name yet: any unique name will do,
# etcd matches members by peer URL)
list_cluster() {
  cluster=
  k=0
  while IFS=', ' read -r m_id _ m_name m_peer _; do
    [ -n "$m_id" ] || continue
    if [ "$m_peer" = "$peer" ]; then
      m_name=$me
    elif [ -z "$m_name" ]; then
      k=$((k + 1))
      m_name=unstarted-$k
    fi
    cluster=\${cluster:+$cluster,}$m_name=$m_peer
  done <<EOF
$members
EOF
}
bootstrap=
if [ -f "$${MEMBER_ENV.bootstrapFile}" ]; then read -r bootstrap < "$${MEMBER_ENV.bootstrapFile}"; fi
state=new
# with data etcd ignores the membership flags; without, only a bootstrap member gets this far
cluster=\${bootstrap:-$me=$peer}
if members=$(ctl member list -w simple); then
  find_self
  if has_data; then
    case $status in
      started) ;;
      unstarted) set_aside "the cluster lists this member as never started" ;;
      *) set_aside "the cluster does not list this member (it was removed)" ;;
    esac
  fi
  if ! has_data; then
    if [ "$status" = started ]; then
      say "the cluster lists this member as started but it has no data: replacing member $id"
      ctl member remove "$id" >&2 || exit 1
      status=
    fi
    if [ -z "$status" ]; then
      say "joining the cluster as $peer"
      ctl member add "$me" --peer-urls="$peer" >&2 || exit 1
      members=$(ctl member list -w simple) || exit 1
    fi
    state=existing
    list_cluster
  fi
elif ! has_data; then
  case ",$bootstrap," in
    *",$me=$peer,"*) say "no member answers: founding the cluster $bootstrap" ;;
    *)
      say "no member answers and this member is not a bootstrap member: waiting for the cluster"
      exit 1
      ;;
  esac
fi
say "starting etcd (data $mount/$dir, cluster state $state)"
exec etcd "$@" --name="$me" --data-dir="$mount/$dir" --initial-advertise-peer-urls="$peer" \\
  --initial-cluster="$cluster" --initial-cluster-state="$state"
`;
