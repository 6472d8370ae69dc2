import { Chart } from "cdk8s";
import { k8s } from "cdk8s-plus-33";
import { EtcdInClusterSettings } from "../../etcd/settings";
import type { KubeObject } from "../../kube/object";
import { synthChart } from "../karmada/chart";
import {
  containerSecurityContext,
  podSecurityContext,
  resourceRequirements,
  secretVolume,
} from "../workloads/pod";
import { ETCD_PKI_DIR, etcdctlEnv } from "./flags";
import { etcdJobPodLabels, etcdMetadata } from "./labels";
import { ETCD_PORTS, etcdInitialCluster, etcdMemberDnsName, etcdMemberNames, etcdObjectNames } from "./names";

/** Key of the bootstrap ConfigMap holding `--initial-cluster` of the founding members. */
export const BOOTSTRAP_KEY = "initial-cluster";
/** Where members mount the bootstrap ConfigMap. */
export const BOOTSTRAP_DIR = "/etc/etcd/bootstrap";

/**
 * The bootstrap record `<name>-bootstrap`: the members that found the cluster when nothing answers
 * (see memberEntrypoint.ts). Written once: apply it with `ignoreChanges: ["data"]`, so a later replica
 * count never lets a member added by a scale-out found a second cluster.
 */
export function etcdBootstrapManifests(settings: EtcdInClusterSettings): KubeObject[] {
  return synthChart(`${settings.name}-etcd-bootstrap`, (chart) => {
    new k8s.KubeConfigMap(chart, "bootstrap", {
      metadata: etcdMetadata(settings, etcdObjectNames(settings).bootstrapConfigMap),
      data: { [BOOTSTRAP_KEY]: etcdInitialCluster(settings) },
    });
  });
}

/** Short etcdctl timeouts: the job retries by failing. */
const ETCDCTL_TIMEOUTS: k8s.EnvVar[] = [
  { name: "ETCDCTL_DIAL_TIMEOUT", value: "3s" },
  { name: "ETCDCTL_COMMAND_TIMEOUT", value: "10s" },
];

/** Environment of the membership job: the peer URLs of the members to keep. */
const KEEP_ENV = "KEEP_PEER_URLS";

/**
 * The membership job's script: removes from etcd every member whose peer URL is not among the replicas
 * wanted (what a scale-in leaves behind: the StatefulSet deleted the pods, etcd still counts them in its
 * quorum). A member that still answers is not removed — its pod has not stopped yet — and the job fails
 * so that Kubernetes retries it. Shell builtins and etcdctl only, as the entrypoint.
 */
export const MEMBERSHIP_SCRIPT = `set -u
members=$(etcdctl member list -w simple) || exit 1
remove=
while IFS=', ' read -r m_id _ m_name m_peer m_client _; do
  [ -n "$m_id" ] || continue
  case " $${KEEP_ENV} " in *" $m_peer "*) continue ;; esac
  if [ -n "$m_client" ] && ETCDCTL_ENDPOINTS=$m_client ETCDCTL_COMMAND_TIMEOUT=3s etcdctl endpoint health >/dev/null 2>&1; then
    echo "member $m_name ($m_peer) still serves: its pod has not stopped yet" >&2
    exit 1
  fi
  remove="$remove $m_id:$m_name"
done <<EOF
$members
EOF
for entry in $remove; do
  echo "removing member \${entry#*:} (\${entry%%:*}), no longer among the replicas"
  etcdctl member remove "\${entry%%:*}" || exit 1
done
etcdctl member list -w table
`;

/**
 * The membership job `<name>-members`, applied after the StatefulSet (so after a scale-in its pods are
 * gone): brings etcd's member list down to the replicas. Its spec names the members wanted, so a replica
 * change replaces it and it runs again; with nothing to remove it only lists the members.
 */
export function etcdMembershipManifests(settings: EtcdInClusterSettings): KubeObject[] {
  return synthChart(`${settings.name}-etcd-members`, (chart) => addMembershipJob(chart, settings));
}

function addMembershipJob(chart: Chart, settings: EtcdInClusterSettings): void {
  const names = etcdObjectNames(settings);
  const keep = etcdMemberNames(settings).map(
    (member) => `https://${etcdMemberDnsName(settings, member)}:${ETCD_PORTS.peer}`,
  );
  new k8s.KubeJob(chart, "job", {
    metadata: etcdMetadata(settings, names.membershipJob),
    spec: {
      // a removed member's pod can take its grace period to stop: retries wait for it (10 s, 20 s, …)
      backoffLimit: 8,
      template: {
        metadata: { labels: etcdJobPodLabels(settings, "members") },
        spec: {
          restartPolicy: "Never",
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: podSecurityContext({ root: false }),
          containers: [
            {
              name: "members",
              image: settings.image,
              imagePullPolicy: settings.imagePullPolicy,
              command: ["/bin/sh", "-c", MEMBERSHIP_SCRIPT],
              env: [...etcdctlEnv(settings), ...ETCDCTL_TIMEOUTS, { name: KEEP_ENV, value: keep.join(" ") }],
              resources: resourceRequirements({ requests: { cpu: "10m", memory: "32Mi" } }),
              securityContext: containerSecurityContext(),
              volumeMounts: [{ name: "pki", mountPath: ETCD_PKI_DIR, readOnly: true }],
            },
          ],
          volumes: [secretVolume("pki", names.certSecret)],
        },
      },
    },
  });
}
