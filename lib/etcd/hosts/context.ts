/**
 * Facts about a cluster's history that scripts need but the current host list cannot tell: kept by
 * the component in Pulumi state (see components/etcd/hostsMode.ts), passed explicitly in tests.
 */
export interface EtcdClusterContext {
  /** `initial-cluster-token`: unique per cluster, new for every restore. */
  readonly token: string;
  /**
   * Members that may bootstrap (or restore) the cluster when no member answers: the host list at
   * creation (or at the latest restore). Any other member only ever joins a running cluster, so a
   * new host can never start a second cluster by itself.
   */
  readonly bootstrapMembers: readonly string[];
}
