import { Chart } from "cdk8s";
import { k8s } from "cdk8s-plus-33";
import { EtcdInClusterSettings } from "../../etcd/settings";
import type { KubeObject } from "../../kube/object";
import { synthChart } from "../karmada/chart";
import { certificatesChecksumAnnotation } from "../workloads/metadata";
import {
  LIVENESS_TIMING,
  READINESS_TIMING,
  containerSecurityContext,
  httpProbe,
  podSecurityContext,
  resourceRequirements,
  secretVolume,
  spreadAcrossNodes,
} from "../workloads/pod";
import { ETCD_DATA_MOUNT, ETCD_PKI_DIR, POD_NAME_ENV, etcdFlags, etcdSelfDnsName } from "./flags";
import { MEMBER_ENTRYPOINT_SCRIPT, MEMBER_ENV } from "./memberEntrypoint";
import { BOOTSTRAP_DIR, BOOTSTRAP_KEY } from "./membership";
import { etcdLabels, etcdMetadata, etcdSelectorLabels } from "./labels";
import { ETCD_PORTS, etcdClientServiceUrl, etcdObjectNames } from "./names";

/** Volume name of the member data (a claim template with `pvc` storage). */
const DATA_VOLUME = "data";

/**
 * The etcd cluster: StatefulSet (members start in parallel and find each other through the headless
 * Service; its pod template is the same for any replica count, the entrypoint decides how each member
 * starts), headless Service `<name>` (client and peer ports, not-ready members published so peers
 * resolve during bootstrap), client Service `<name>-client`, and a PodDisruptionBudget for 3 or 5
 * members. The certificate Secret `<name>-cert` and the bootstrap ConfigMap `<name>-bootstrap` are
 * referenced by name only.
 */
export function etcdClusterManifests(settings: EtcdInClusterSettings): KubeObject[] {
  return synthChart(`${settings.name}-etcd`, (chart) => addEtcdCluster(chart, settings));
}

function addEtcdCluster(chart: Chart, settings: EtcdInClusterSettings): void {
  const names = etcdObjectNames(settings);
  const selector = etcdSelectorLabels(settings);
  const port = (name: keyof typeof ETCD_PORTS) => ({
    name,
    port: ETCD_PORTS[name],
    targetPort: k8s.IntOrString.fromNumber(ETCD_PORTS[name]),
    protocol: "TCP",
  });

  new k8s.KubeService(chart, "headless", {
    metadata: etcdMetadata(settings, names.headlessService),
    spec: {
      clusterIp: "None",
      publishNotReadyAddresses: true,
      selector,
      ports: [port("client"), port("peer")],
    },
  });
  new k8s.KubeService(chart, "client", {
    metadata: etcdMetadata(settings, names.clientService),
    spec: { type: "ClusterIP", selector, ports: [port("client")] },
  });

  const pvc = settings.storage.kind === "pvc" ? settings.storage : undefined;
  new k8s.KubeStatefulSet(chart, "statefulset", {
    metadata: etcdMetadata(settings, names.statefulSet, {
      labels: settings.labels,
      annotations: settings.annotations,
    }),
    spec: {
      serviceName: names.headlessService,
      replicas: settings.replicas,
      podManagementPolicy: "Parallel",
      selector: { matchLabels: selector },
      template: {
        metadata: {
          labels: etcdLabels(settings, settings.labels),
          annotations: { ...settings.annotations, ...certificatesChecksumAnnotation() },
        },
        spec: memberPod(settings, selector),
      },
      volumeClaimTemplates: pvc && [
        {
          metadata: { name: DATA_VOLUME, labels: etcdLabels(settings) },
          spec: {
            accessModes: ["ReadWriteOnce"],
            storageClassName: pvc.storageClassName,
            resources: { requests: { storage: k8s.Quantity.fromString(pvc.size) } },
          },
        },
      ],
      // Data outlives the StatefulSet unless the user asked otherwise; scale-in never deletes data.
      persistentVolumeClaimRetentionPolicy: pvc && {
        whenDeleted: settings.deleteDataOnDestroy ? "Delete" : "Retain",
        whenScaled: "Retain",
      },
    },
  });

  if (settings.replicas > 1) {
    new k8s.KubePodDisruptionBudget(chart, "pdb", {
      metadata: etcdMetadata(settings, names.podDisruptionBudget),
      // One member at a time: 3 and 5 members keep quorum with one away.
      spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
    });
  }
}

function memberPod(settings: EtcdInClusterSettings, selector: Record<string, string>): k8s.PodSpec {
  const names = etcdObjectNames(settings);
  const storage = settings.storage;
  const dataVolume: k8s.Volume[] =
    storage.kind === "emptyDir"
      ? [{ name: DATA_VOLUME, emptyDir: {} }]
      : storage.kind === "hostPath"
        ? [{ name: DATA_VOLUME, hostPath: { path: storage.path, type: "DirectoryOrCreate" } }]
        : []; // pvc: the claim template provides the volume
  const health = (path: string, timing: typeof LIVENESS_TIMING) =>
    httpProbe(path, ETCD_PORTS.metrics, "HTTP", timing);
  return {
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    priorityClassName: settings.priorityClassName || undefined,
    // hostPath directories are created root-owned and Kubernetes does not chown them.
    securityContext: podSecurityContext({ root: storage.kind === "hostPath" }),
    affinity: spreadAcrossNodes(selector, true),
    containers: [
      {
        name: "etcd",
        image: settings.image,
        imagePullPolicy: settings.imagePullPolicy,
        command: ["/bin/sh", "-c", MEMBER_ENTRYPOINT_SCRIPT, "etcd-member"],
        args: etcdFlags(settings),
        env: etcdMemberEnv(settings),
        ports: (["client", "peer", "metrics"] as const).map((name) => ({
          name,
          containerPort: ETCD_PORTS[name],
          protocol: "TCP",
        })),
        resources: resourceRequirements(settings.resources),
        // Local checks only for startup and liveness: a member without quorum must not be restarted
        // (that cannot bring quorum back); readiness asks for a healthy cluster.
        startupProbe: health("/health?serializable=true", {
          periodSeconds: 5,
          timeoutSeconds: 5,
          failureThreshold: 60,
        }),
        livenessProbe: health("/health?exclude=NOSPACE&serializable=true", {
          ...LIVENESS_TIMING,
          initialDelaySeconds: undefined,
        }),
        readinessProbe: health("/health", READINESS_TIMING),
        securityContext: containerSecurityContext(),
        volumeMounts: [
          { name: "pki", mountPath: ETCD_PKI_DIR, readOnly: true },
          { name: DATA_VOLUME, mountPath: ETCD_DATA_MOUNT },
          { name: "bootstrap", mountPath: BOOTSTRAP_DIR, readOnly: true },
        ],
      },
    ],
    volumes: [
      secretVolume("pki", names.certSecret),
      { name: "bootstrap", configMap: { name: names.bootstrapConfigMap } },
      ...dataVolume,
    ],
  };
}

/** What the entrypoint reads (memberEntrypoint.ts): who this member is and how to reach the cluster. */
function etcdMemberEnv(settings: EtcdInClusterSettings): k8s.EnvVar[] {
  return [
    // first: the values below expand `$(POD_NAME)`
    { name: POD_NAME_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    { name: MEMBER_ENV.peerUrl, value: `https://${etcdSelfDnsName(settings)}:${ETCD_PORTS.peer}` },
    { name: MEMBER_ENV.dataMount, value: ETCD_DATA_MOUNT },
    { name: MEMBER_ENV.bootstrapFile, value: `${BOOTSTRAP_DIR}/${BOOTSTRAP_KEY}` },
    { name: MEMBER_ENV.clusterUrl, value: etcdClientServiceUrl(settings) },
    { name: MEMBER_ENV.pkiDir, value: ETCD_PKI_DIR },
  ];
}
