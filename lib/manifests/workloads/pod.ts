import { k8s } from "cdk8s-plus-33";
import { ResourceRequirements } from "../../controlplane/settings";

/** Unprivileged user and group the containers run as (the conventional "nonroot" id of distroless images). */
const NON_ROOT_ID = 65532;

/** Node label that tells nodes apart, for spreading replicas. */
const HOSTNAME_TOPOLOGY_KEY = "kubernetes.io/hostname";

/**
 * Pod security defaults: non-root, RuntimeDefault seccomp, and `fsGroup` so the non-root user can read
 * Secret files (mounted group-readable) and write volumes. `root` is only for hostPath data directories,
 * whose ownership Kubernetes does not adjust.
 */
export function podSecurityContext(options: { root?: boolean } = {}): k8s.PodSecurityContext {
  const seccompProfile = { type: "RuntimeDefault" };
  if (options.root) return { runAsNonRoot: false, runAsUser: 0, runAsGroup: 0, seccompProfile };
  return {
    runAsNonRoot: true,
    runAsUser: NON_ROOT_ID,
    runAsGroup: NON_ROOT_ID,
    fsGroup: NON_ROOT_ID,
    fsGroupChangePolicy: "OnRootMismatch",
    seccompProfile,
  };
}

/** Container security defaults: no privilege escalation, no capabilities, read-only root filesystem. */
export function containerSecurityContext(): k8s.SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    privileged: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
  };
}

/** Requests and limits as Kubernetes quantities; `undefined` when none are set. */
export function resourceRequirements(resources: ResourceRequirements): k8s.ResourceRequirements | undefined {
  const quantities = (values?: Readonly<Record<string, string>>) =>
    values && Object.keys(values).length > 0
      ? Object.fromEntries(Object.entries(values).map(([name, q]) => [name, k8s.Quantity.fromString(q)]))
      : undefined;
  const requests = quantities(resources.requests);
  const limits = quantities(resources.limits);
  return requests || limits ? { requests, limits } : undefined;
}

/**
 * Anti-affinity that puts replicas on different nodes. `required` refuses to co-locate (etcd: two members
 * on one node would share a failure); otherwise it is a strong preference, so rolling updates and small
 * host clusters still schedule.
 */
export function spreadAcrossNodes(selector: Record<string, string>, required: boolean): k8s.Affinity {
  const term: k8s.PodAffinityTerm = {
    labelSelector: { matchLabels: selector },
    topologyKey: HOSTNAME_TOPOLOGY_KEY,
  };
  return {
    podAntiAffinity: required
      ? { requiredDuringSchedulingIgnoredDuringExecution: [term] }
      : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] },
  };
}

/** How often and how patiently a probe checks. */
export interface ProbeTiming {
  readonly initialDelaySeconds?: number;
  readonly periodSeconds: number;
  readonly timeoutSeconds: number;
  readonly failureThreshold: number;
}

/** Liveness timing: tolerant, since a restart is costly. */
export const LIVENESS_TIMING: ProbeTiming = {
  initialDelaySeconds: 10,
  periodSeconds: 10,
  timeoutSeconds: 5,
  failureThreshold: 8,
};
/** Readiness timing: quick to take a pod out of its Service. */
export const READINESS_TIMING: ProbeTiming = { periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 3 };

/** An HTTP(S) GET probe. */
export function httpProbe(
  path: string,
  port: number,
  scheme: "HTTP" | "HTTPS",
  timing: ProbeTiming,
): k8s.Probe {
  return { httpGet: { path, port: k8s.IntOrString.fromNumber(port), scheme }, ...timing };
}

/** Mode of mounted Secret files: owner and group may read (the pod's fsGroup is the group). */
const SECRET_FILE_MODE = 0o440;

/** A volume backed by a Secret, referenced by name; the Secret itself is created elsewhere. */
export function secretVolume(volumeName: string, secretName: string): k8s.Volume {
  return { name: volumeName, secret: { secretName, defaultMode: SECRET_FILE_MODE } };
}
