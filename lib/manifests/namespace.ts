import type { KubeObject } from "../kube/object";

/** A namespace labelled as part of Karmada (host-cluster namespaces of the control plane and etcd). */
export function namespaceObject(name: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      labels: { "app.kubernetes.io/part-of": "karmada", "app.kubernetes.io/managed-by": "pulumi-karmada" },
    },
  };
}
