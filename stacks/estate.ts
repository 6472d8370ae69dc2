import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { DEFAULT_KARMADA_VERSION, findRelease, resolveImage } from "../lib/catalog";
import { EtcdCluster } from "../components/etcdCluster";
import { KarmadaControlPlane } from "../components/karmadaControlPlane";
import { StackConfig } from "./config";

/** What one environment's estate exposes. */
export interface Estate {
  readonly hostProvider: k8s.Provider;
  readonly etcd: EtcdCluster;
  readonly controlPlane: KarmadaControlPlane;
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
  return { hostProvider, etcd, controlPlane };
}
