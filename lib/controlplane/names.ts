import { KarmadaComponent } from "../catalog/components";
import { KARMADA_SYSTEM_NAMESPACE } from "../catalog/namespaces";

/**
 * Kubernetes object names of a containerized control plane, in one place. They follow karmadactl's
 * conventions (Deployment/Service named after the component, kubeconfig Secrets `<component>-config`
 * with key `karmada.config`) so that upstream tooling — karmadactl addons, docs, runbooks — finds them.
 */
export const objectNames = {
  /** Deployment and Service of a component. */
  workload: (component: KarmadaComponent): string => component,
  /** Secret holding the certificates and keys one component mounts. */
  certSecret: (component: KarmadaComponent): string => `${component}-cert`,
  /** Secret holding a component's kubeconfig for karmada-apiserver (key `karmada.config`). */
  kubeconfigSecret: (component: KarmadaComponent): string => `${component}-config`,
  /** Admin kubeconfig Secret. */
  adminKubeconfigSecret: "karmada-admin-config",
  /** Key under which kubeconfig Secrets carry the kubeconfig. */
  kubeconfigKey: "karmada.config",
  /** Namespace inside karmada-apiserver that holds Karmada's own objects. */
  karmadaSystemNamespace: KARMADA_SYSTEM_NAMESPACE,
  /** Namespace inside karmada-apiserver that holds member credentials. */
  clusterNamespace: "karmada-cluster",
} as const;

/** In-cluster DNS name of a Service. */
export function serviceDnsName(service: string, namespace: string, clusterDomain: string): string {
  return `${service}.${namespace}.svc.${clusterDomain}`;
}
