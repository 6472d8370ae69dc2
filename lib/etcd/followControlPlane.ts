/**
 * In an estate, an in-cluster etcd follows its control plane: the same host namespace, and its images
 * from the control plane's release through the control plane's registry rewrites (one `images` setting
 * moves etcd's images too). The stacks program and `synth` both compose etcd through this function.
 */
import { DEFAULT_KARMADA_VERSION, findRelease, resolveImage } from "../catalog";
import { ControlPlaneConfig } from "../controlplane/config";
import { CONTROL_PLANE_DEFAULTS } from "../controlplane/defaults";
import { EtcdInClusterArgs } from "./config";

/**
 * `inCluster` completed with what the control plane implies where it is silent: the namespace, the etcd
 * image and, when a backup section is given (it turns the job on), the backup tools image.
 */
export function etcdFollowingControlPlane<T extends EtcdInClusterArgs>(
  controlPlane: ControlPlaneConfig,
  inCluster: T | undefined,
): T & Required<Pick<EtcdInClusterArgs, "namespace" | "image">> {
  const release = findRelease(controlPlane.karmadaVersion ?? DEFAULT_KARMADA_VERSION);
  const backup = inCluster?.backup && {
    toolsImage: resolveImage("etcd-backup-tools", release, controlPlane.images),
    ...inCluster.backup,
  };
  return {
    namespace: controlPlane.namespace ?? CONTROL_PLANE_DEFAULTS.namespace,
    image: resolveImage("etcd", release, controlPlane.images),
    ...(inCluster as T),
    ...(backup ? { backup } : {}),
  };
}
