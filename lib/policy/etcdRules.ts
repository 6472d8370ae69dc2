/**
 * Rules about etcd, the one part of an estate whose loss loses data: enough members to survive one
 * failing, data on persistent storage, scheduled backups. They recognise the library's etcd by its
 * children — a StatefulSet (in-cluster) or member commands (on hosts) under an `EtcdCluster` — so an
 * external etcd, which the estate does not run, is not judged.
 */
import { shortTypeName } from "../preview/urn";
import { PolicyParameters } from "./config";
import { PolicySubject, PolicyViolation, prop, under } from "./subject";

const STATEFUL_SET = "kubernetes:apps/v1:StatefulSet";
const CRON_JOB = "kubernetes:batch/v1:CronJob";
const REMOTE_COMMAND = "command:remote:Command";

/** One etcd the estate runs: the component and how its members are deployed. */
interface RunEtcd {
  /** URN of the `EtcdCluster` component. */
  readonly component: string;
  /** Its name, for messages. */
  readonly name: string;
  readonly mode: "inCluster" | "hosts";
  /** The StatefulSet (in-cluster) or the member commands (hosts). */
  readonly members: readonly PolicySubject[];
  /** Every child of the component. */
  readonly children: readonly PolicySubject[];
}

/** Name of the component a URN names (its last segment). */
const componentName = (urn: string) => urn.split("::").slice(3).join("::");

/** The etcd clusters the stack runs itself (in-cluster or on hosts), grouped by their component. */
function runEtcds(resources: readonly PolicySubject[]): RunEtcd[] {
  const byComponent = new Map<string, PolicySubject[]>();
  for (const r of resources) {
    if (!r.parent || !under(r, "EtcdCluster")) continue;
    if (shortTypeName(r.parent.split("::")[2]?.split("$").pop() ?? "") !== "EtcdCluster") continue;
    byComponent.set(r.parent, [...(byComponent.get(r.parent) ?? []), r]);
  }
  const found: RunEtcd[] = [];
  for (const [component, children] of byComponent) {
    const statefulSets = children.filter((c) => c.type === STATEFUL_SET);
    const memberCommands = children.filter((c) => c.type === REMOTE_COMMAND && c.name.endsWith("-member"));
    const name = componentName(component);
    if (statefulSets.length > 0)
      found.push({ component, name, mode: "inCluster", members: statefulSets, children });
    else if (memberCommands.length > 0)
      found.push({ component, name, mode: "hosts", members: memberCommands, children });
  }
  return found;
}

/** Fewer members than `minEtcdMembers`: one loss (or one upgrade) stops the control plane. */
export function etcdMemberCount(
  resources: readonly PolicySubject[],
  params: PolicyParameters,
): PolicyViolation[] {
  const min = params.minEtcdMembers;
  return runEtcds(resources).flatMap((etcd): PolicyViolation[] => {
    if (etcd.mode === "inCluster") {
      return etcd.members.flatMap((set) => {
        const replicas = prop(set.props, "spec", "replicas");
        if (typeof replicas !== "number" || replicas >= min) return [];
        return [
          {
            urn: set.urn,
            message:
              `etcd "${etcd.name}" runs ${replicas} member(s) (StatefulSet ${set.name}); at least ${min} keep a ` +
              `majority through one loss. Fix: etcd.inCluster.replicas: ${min % 2 === 1 ? min : min + 1}.`,
          },
        ];
      });
    }
    if (etcd.members.length >= min) return [];
    return [
      {
        urn: etcd.component,
        message:
          `etcd "${etcd.name}" runs ${etcd.members.length} member(s) on hosts; at least ${min} keep a majority ` +
          `through one loss. Fix: list ${min} or more hosts in etcd.hosts.hosts.`,
      },
    ];
  });
}

/** An in-cluster etcd on `emptyDir`: its data goes with the pod. */
export function etcdPersistentStorage(resources: readonly PolicySubject[]): PolicyViolation[] {
  return runEtcds(resources)
    .filter((etcd) => etcd.mode === "inCluster")
    .flatMap((etcd) =>
      etcd.members.flatMap((set) => {
        // a claim template (pvc) adds no pod volume; hostPath and emptyDir are the pod volume "data"
        const volumes = prop(set.props, "spec", "template", "spec", "volumes");
        const data = Array.isArray(volumes) ? volumes.find((v) => prop(v, "name") === "data") : undefined;
        if (prop(data, "emptyDir") === undefined) return [];
        return [
          {
            urn: set.urn,
            message:
              `etcd "${etcd.name}" keeps its data on emptyDir (StatefulSet ${set.name}): a rescheduled pod loses ` +
              `it. Fix: etcd.inCluster.storage: { kind: pvc, size: "20Gi" } (or kind: hostPath).`,
          },
        ];
      }),
    );
}

/** An etcd without scheduled backups: a lost quorum or a bad write cannot be undone. */
export function etcdBackups(resources: readonly PolicySubject[]): PolicyViolation[] {
  return runEtcds(resources).flatMap((etcd): PolicyViolation[] => {
    const scheduled =
      etcd.mode === "inCluster"
        ? etcd.children.some((c) => c.type === CRON_JOB)
        : etcd.children.some((c) => c.type === REMOTE_COMMAND && c.name.endsWith("-backup"));
    if (scheduled) return [];
    const fix =
      etcd.mode === "inCluster"
        ? 'etcd.inCluster.backup: { schedule: "0 */4 * * *", retain: 12 }'
        : "etcd.hosts.backup: { enabled: true, intervalMinutes: 240 }";
    return [
      {
        urn: etcd.component,
        message: `etcd "${etcd.name}" has no scheduled backup. Fix: ${fix}.`,
      },
    ];
  });
}
