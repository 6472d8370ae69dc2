/** A control plane's defaults, in one place (resolve.ts applies them). */
import { KARMADA_SYSTEM_NAMESPACE } from "../catalog/namespaces";
import { ResourceRequirements } from "./settings";

export const CONTROL_PLANE_DEFAULTS = {
  mode: "containerized",
  /** kube-public/cluster-info and the bootstrap-token RBAC, for pull members' `karmadactl register`. */
  pullModeBootstrap: true,
  createNamespace: true,
  /** The CRD bundle of the release (downloaded from its GitHub release). */
  crds: { kind: "release" },
  namespace: KARMADA_SYSTEM_NAMESPACE,
  clusterDomain: "cluster.local",
  apiServerPort: 5443,
  serviceSubnet: "10.96.0.0/12",
  etcdKeyPrefix: "/registry",
  priorityClassName: "system-node-critical",
  imagePullPolicy: "IfNotPresent",
  resources: { requests: { cpu: "100m", memory: "128Mi" } } as ResourceRequirements,
  apiServerResources: { requests: { cpu: "250m", memory: "512Mi" } } as ResourceRequirements,
} as const;
