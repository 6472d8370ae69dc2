import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { DEFAULT_KARMADA_VERSION, findRelease, resolveImage } from "../lib/catalog";
import { EtcdCluster } from "../components/etcdCluster";
import { Addon } from "../components/addon";
import { KarmadaControlPlane } from "../components/karmadaControlPlane";
import { MemberRegistration } from "../components/memberRegistration";
import { StackConfig } from "./config";

/** What one environment's estate exposes. */
export interface Estate {
  readonly hostProvider: k8s.Provider;
  readonly etcd: EtcdCluster;
  readonly controlPlane: KarmadaControlPlane;
  readonly members: MemberRegistration[];
  readonly addons: Addon[];
}

/**
 * Composes an estate from stack config: the host-cluster provider, etcd, and the control plane that
 * stores its state in that etcd.
 */
export function buildEstate(config: StackConfig): Estate {
  const hostProvider = new k8s.Provider("host", {
    kubeconfig: config.hostKubeconfig ? pulumi.secret(config.hostKubeconfig) : undefined,
    context: config.hostContext,
    // the host cluster's identity: recomputing its kubeconfig must not replace every object on it
    clusterIdentifier: `host-${config.hostContext ?? "default"}`,
  });
  const namespace = config.controlPlane?.namespace ?? "karmada-system";
  // one registry setting rewrites every image, etcd's included
  const release = findRelease(config.controlPlane?.karmadaVersion ?? DEFAULT_KARMADA_VERSION);
  const etcdImage = resolveImage("etcd", release, config.controlPlane?.images);
  const etcd = new EtcdCluster(
    "etcd",
    { ...config.etcd, inCluster: { namespace, image: etcdImage, ...config.etcd?.inCluster } },
    { provider: hostProvider },
  );
  const controlPlane = new KarmadaControlPlane(
    "karmada",
    { ...config.controlPlane, crds: config.crds, etcd },
    { provider: hostProvider },
  );
  // each member through its own provider: no edge between two members' resources
  const kubeconfigs = pulumi.secret(pulumi.output(config.memberKubeconfigs ?? {}));
  const memberProviders = (config.members ?? []).map((m) => ({
    clusterName: m.clusterName,
    provider: new k8s.Provider(`member-${m.clusterName}`, {
      kubeconfig: kubeconfigs.apply((all) => {
        if (!all[m.clusterName])
          throw new Error(`karmada:memberKubeconfigs has no entry for ${m.clusterName}`);
        return all[m.clusterName];
      }),
      clusterIdentifier: `member-${m.clusterName}`,
    }),
  }));
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
        // only addons that act on members take them (the Addon refuses members it would ignore)
        ...(addon.target === "members" || addon.kind === "schedulerEstimator"
          ? { members: memberProviders }
          : {}),
      }),
  );
  return { hostProvider, etcd, controlPlane, members, addons };
}
