import { EtcdInClusterSettings } from "../../etcd/settings";
import { MANAGED_BY, PART_OF, objectAnnotations } from "../workloads/metadata";

/** Labels selecting one etcd cluster's members; immutable once the StatefulSet exists. */
export function etcdSelectorLabels(settings: Pick<EtcdInClusterSettings, "name">): Record<string, string> {
  return { "app.kubernetes.io/name": "etcd", "app.kubernetes.io/instance": settings.name, ...PART_OF };
}

/** Labels of an etcd object: the user's extra labels (workload and pods only), overridden by ours. */
export function etcdLabels(
  settings: Pick<EtcdInClusterSettings, "name">,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return { ...extra, ...etcdSelectorLabels(settings), ...MANAGED_BY };
}

/**
 * Labels of the pods of an etcd job (`backup`, `members`). Their `app.kubernetes.io/name` differs from
 * the members' so that no selector of the members (the client and peer Services, the
 * PodDisruptionBudget, the StatefulSet) ever picks up a job's pod: a client routed to it would find
 * nothing serving on 2379.
 */
export function etcdJobPodLabels(
  settings: Pick<EtcdInClusterSettings, "name">,
  job: "backup" | "members",
): Record<string, string> {
  return {
    ...etcdLabels(settings),
    "app.kubernetes.io/name": `etcd-${job}`,
    "app.kubernetes.io/component": job,
  };
}

/** Metadata of a top-level etcd object: name, namespace, labels, annotations (skip-await in the test bed). */
export function etcdMetadata(
  settings: EtcdInClusterSettings,
  name: string,
  options: { labels?: Readonly<Record<string, string>>; annotations?: Readonly<Record<string, string>> } = {},
) {
  return {
    name,
    namespace: settings.namespace,
    labels: etcdLabels(settings, options.labels),
    annotations: objectAnnotations(settings.awaitWorkloads, options.annotations),
  };
}
