import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { etcdFollowingControlPlane } from "../lib/etcd/followControlPlane";
import { EtcdCluster } from "../components/etcdCluster";
import { Addon } from "../components/addon";
import { KarmadaControlPlane } from "../components/karmadaControlPlane";
import { MemberRegistration } from "../components/memberRegistration";
import { defaultTarget } from "../lib/addons/defaults";
import { kubeconfigSource, StackConfig } from "./config";

/** What one environment's estate exposes. */
export interface Estate {
  /** The host cluster's provider; absent when nothing runs on a host cluster (etcd and control plane on hosts). */
  readonly hostProvider?: k8s.Provider;
  /** Karmada's etcd (`karmada:etcd`). */
  readonly etcd: EtcdCluster;
  /** The control plane (`karmada:controlPlane`), storing its state in `etcd`. */
  readonly controlPlane: KarmadaControlPlane;
  /** One registration per entry of `karmada:members`, in that order. */
  readonly members: MemberRegistration[];
  /** One addon per entry of `karmada:addons`, in that order. */
  readonly addons: Addon[];
}

/** Hosts of `list` with `key` as the private key of those that set none (a missing list stays missing). */
function withDefaultKey<T extends { privateKey?: pulumi.Input<string> }>(
  list: T[],
  key: pulumi.Input<string>,
): T[] {
  if (!Array.isArray(list)) return list; // validation names the field
  return list.map((h) => (h.privateKey === undefined ? { ...h, privateKey: pulumi.secret(key) } : h));
}

/** The stack config with `sshPrivateKey` filled in for every machine that names no key of its own. */
function withSshKeys(config: StackConfig): StackConfig {
  const key = config.sshPrivateKey;
  if (key === undefined) return config;
  const etcdHosts = config.etcd?.hosts;
  const cpHosts = config.controlPlane?.hosts;
  return {
    ...config,
    etcd: etcdHosts
      ? { ...config.etcd, hosts: { ...etcdHosts, hosts: withDefaultKey(etcdHosts.hosts, key) } }
      : config.etcd,
    controlPlane: cpHosts
      ? { ...config.controlPlane, hosts: { ...cpHosts, machines: withDefaultKey(cpHosts.machines, key) } }
      : config.controlPlane,
  };
}

/**
 * Whether anything of the estate lives on a host Kubernetes cluster (and so needs its provider): in-cluster
 * etcd, a containerized control plane, addons on the host (where built-in addons run by default), or a
 * host kubeconfig given explicitly.
 */
function needsHostCluster(config: StackConfig): boolean {
  return (
    config.hostKubeconfig !== undefined ||
    (config.etcd?.mode ?? "inCluster") === "inCluster" ||
    (config.controlPlane?.mode ?? "containerized") === "containerized" ||
    (config.addons ?? []).some((a) => (a.target ?? defaultTarget(a.kind)) === "host")
  );
}

/**
 * Composes an estate from stack config: the host-cluster provider (when something runs on a host
 * cluster), etcd, the control plane that stores its state in that etcd, members and addons.
 */
export function buildEstate(stackConfig: StackConfig): Estate {
  const config = withSshKeys(stackConfig);
  const hostProvider = needsHostCluster(config)
    ? new k8s.Provider("host", {
        kubeconfig: config.hostKubeconfig ? pulumi.secret(config.hostKubeconfig) : undefined,
        context: config.hostContext,
        // the host cluster's identity: recomputing its kubeconfig must not replace every object on it
        clusterIdentifier: `host-${config.hostContext ?? "default"}`,
      })
    : undefined;
  const etcd = new EtcdCluster(
    "etcd",
    (config.etcd?.mode ?? "inCluster") === "inCluster"
      ? {
          ...config.etcd,
          inCluster: etcdFollowingControlPlane(config.controlPlane ?? {}, config.etcd?.inCluster),
        }
      : config.etcd,
    { provider: hostProvider },
  );
  const controlPlane = new KarmadaControlPlane(
    "karmada",
    { ...config.controlPlane, crds: config.crds, etcd },
    { provider: hostProvider },
  );
  // each member API server through one provider of its own: no edge between two servers' resources.
  // Members on one server (the same apiEndpoint) share the first one's provider: the engine runs every
  // provider instance as a plugin process of its own (≈ 130 MiB each, docs/performance.md).
  const kubeconfigs = pulumi.secret(pulumi.output(config.memberKubeconfigs ?? {}));
  const kubeconfigOf = (clusterName: string) =>
    // secret: derived from the secret map (the scheduler estimator stores it in a Secret on the host)
    kubeconfigs.apply((all) => {
      const source = kubeconfigSource(config.members ?? [], clusterName, (name) => Boolean(all[name]));
      if (!source) throw new Error(`karmada:memberKubeconfigs has no entry for ${clusterName}`);
      return all[source];
    });
  const byEndpoint = new Map<string, k8s.Provider>();
  const memberProviders = (config.members ?? []).map((m) => {
    const kubeconfig = kubeconfigOf(m.clusterName);
    const provider =
      byEndpoint.get(m.apiEndpoint) ??
      new k8s.Provider(`member-${m.clusterName}`, {
        kubeconfig,
        clusterIdentifier: `member-${m.clusterName}`,
      });
    byEndpoint.set(m.apiEndpoint, provider);
    return { clusterName: m.clusterName, kubeconfig, provider };
  });
  const members = (config.members ?? []).map(
    (m, i) =>
      new MemberRegistration(
        m.clusterName,
        { ...m, controlPlane },
        { provider: memberProviders[i].provider },
      ),
  );
  const addons = (config.addons ?? []).map(
    ({ name, ...addon }) =>
      new Addon(name, {
        ...addon,
        controlPlane,
        etcd,
        // only addons that act on members take them (the Addon refuses members it would ignore): the
        // scheduler estimator one per Cluster, what installs into members once per API server
        ...(addon.kind === "schedulerEstimator"
          ? { members: memberProviders }
          : addon.target === "members"
            ? { members: onePerServer(memberProviders) }
            : {}),
      }),
  );
  return { hostProvider, etcd, controlPlane, members, addons };
}

/** The first of each group of members sharing a provider (an API server): where to install things once. */
function onePerServer<T extends { readonly provider: k8s.Provider }>(members: readonly T[]): T[] {
  return members.filter((m, i) => members.findIndex((o) => o.provider === m.provider) === i);
}
