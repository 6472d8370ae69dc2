import { ControlPlaneSettings } from "../controlplane/settings";
import type { KubeObject } from "../kube/object";
import { objectAnnotations } from "../manifests/workloads/metadata";
import { containerSecurityContext, podSecurityContext } from "../manifests/workloads/pod";
import { CertSpec, LEAF_BASE_USES } from "../pki/certificates";
import { serviceDnsNames } from "../pki/sans";
import { checkNotOwned } from "../validation/owned-flags";
import type { BuiltinOverrides } from "./config";
import { ESTIMATOR_HEALTH_PORT, ESTIMATOR_OWNED_FLAGS, ESTIMATOR_PORT } from "./estimatorFlags";

export { ESTIMATOR_OWNED_FLAGS };

const MEMBER_KUBECONFIG_DIR = "/etc/karmada/member";
const PKI_DIR = "/etc/karmada/pki";

/** Names of one member's estimator objects (karmadactl addons' names). */
export function estimatorNames(clusterName: string) {
  const workload = `karmada-scheduler-estimator-${clusterName}`;
  return {
    /** Deployment and Service; the scheduler dials `<prefix>-<cluster>` (its service prefix). */
    workload,
    /** Secret with the member's kubeconfig, key `<cluster>-kubeconfig`. */
    kubeconfigSecret: `${clusterName}-kubeconfig`,
    kubeconfigKey: `${clusterName}-kubeconfig`,
    /** Secret with the estimator's serving certificate. */
    certSecret: `${workload}-cert`,
  };
}

/** Serving certificate of an estimator, signed by the Karmada CA: the scheduler verifies it with `ca.crt`. */
export function estimatorCertificate(
  settings: ControlPlaneSettings,
  clusterName: string,
  validityHours = 8760,
): CertSpec {
  return {
    id: "karmada-scheduler-estimator-client",
    commonName: estimatorNames(clusterName).workload,
    organizations: [],
    signer: "karmada-ca",
    allowedUses: [...LEAF_BASE_USES, "server_auth"],
    dnsNames: serviceDnsNames(
      estimatorNames(clusterName).workload,
      settings.namespace,
      settings.clusterDomain,
    ),
    ipAddresses: [],
    validityHours,
    files: { cert: "karmada-scheduler-estimator-client.crt", key: "karmada-scheduler-estimator-client.key" },
  };
}

/** Keys of the estimator's cert Secret. */
export const ESTIMATOR_CERT_KEYS = { ca: "ca.crt", cert: "tls.crt", key: "tls.key" } as const;

/**
 * Deployment and Service `karmada-scheduler-estimator-<cluster>` on the host cluster, in the control
 * plane's namespace, with the image from the control plane's catalog/registry settings. It serves
 * gRPC over TLS (no client-certificate requirement: the scheduler has none of its own).
 */
export function estimatorManifests(
  settings: ControlPlaneSettings,
  clusterName: string,
  overrides: BuiltinOverrides = {},
): KubeObject[] {
  const own = settings.components["karmada-scheduler-estimator"];
  const owner = { name: "the schedulerEstimator addon", flags: ESTIMATOR_OWNED_FLAGS };
  checkNotOwned("overrides.extraArgs", { ...own.extraArgs, ...overrides.extraArgs }, owner);
  const names = estimatorNames(clusterName);
  const labels = { app: names.workload, cluster: clusterName };
  const flags = {
    kubeconfig: `${MEMBER_KUBECONFIG_DIR}/${names.kubeconfigKey}`,
    "cluster-name": clusterName,
    "server-port": String(ESTIMATOR_PORT),
    "grpc-auth-cert-file": `${PKI_DIR}/${ESTIMATOR_CERT_KEYS.cert}`,
    "grpc-auth-key-file": `${PKI_DIR}/${ESTIMATOR_CERT_KEYS.key}`,
    "metrics-bind-address": ":8080",
    "health-probe-bind-address": `:${ESTIMATOR_HEALTH_PORT}`,
    ...own.extraArgs,
    ...(overrides.extraArgs ?? {}),
  };
  const metadata = { name: names.workload, namespace: settings.namespace, labels };
  return [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { ...metadata, annotations: objectAnnotations(settings.awaitWorkloads) },
      spec: {
        replicas: overrides.replicas ?? own.replicas,
        selector: { matchLabels: { app: names.workload } },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            priorityClassName: own.priorityClassName || undefined,
            securityContext: podSecurityContext(),
            containers: [
              {
                name: "karmada-scheduler-estimator",
                image: own.image,
                imagePullPolicy: own.imagePullPolicy,
                command: ["/bin/karmada-scheduler-estimator"],
                args: Object.keys(flags)
                  .sort()
                  .map((k) => `--${k}=${flags[k as keyof typeof flags]}`),
                ports: [
                  { name: "grpc", containerPort: ESTIMATOR_PORT, protocol: "TCP" },
                  { name: "metrics", containerPort: 8080, protocol: "TCP" },
                ],
                livenessProbe: {
                  httpGet: { path: "/healthz", port: ESTIMATOR_HEALTH_PORT, scheme: "HTTP" },
                  periodSeconds: 15,
                  timeoutSeconds: 5,
                  failureThreshold: 3,
                },
                securityContext: containerSecurityContext(),
                volumeMounts: [
                  { name: "pki", mountPath: PKI_DIR, readOnly: true },
                  { name: "member-kubeconfig", mountPath: MEMBER_KUBECONFIG_DIR, readOnly: true },
                ],
              },
            ],
            volumes: [
              { name: "pki", secret: { secretName: names.certSecret } },
              { name: "member-kubeconfig", secret: { secretName: names.kubeconfigSecret } },
            ],
          },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata,
      spec: {
        selector: { app: names.workload },
        ports: [{ name: "grpc", protocol: "TCP", port: ESTIMATOR_PORT, targetPort: ESTIMATOR_PORT }],
      },
    },
  ];
}
