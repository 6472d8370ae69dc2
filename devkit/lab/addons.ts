/**
 * What every lab cluster with nodes runs besides the control plane, as plain Kubernetes objects (pure):
 * CoreDNS (Karmada's components find each other by `*.svc` names) and the local-path provisioner with
 * the default StorageClass `local-path` (etcd's StatefulSet claims bind to volumes on the node that runs
 * the pod). Images from the lab registry at the versions the test bed built.
 */
import type { ClusterPlan } from "./plan";
import { nodeFiles } from "./nodeConfig";

/** A Kubernetes object as plain JSON. */
export type LabObject = Record<string, any>;

/** The images the add-ons run (full references in the lab registry). */
export interface AddonImages {
  readonly coredns: string;
  readonly localPathProvisioner: string;
  /** The provisioner's helper pods (mkdir/rm of a volume). */
  readonly busybox: string;
}

const DNS_NAMESPACE = "kube-system";
export const STORAGE_NAMESPACE = "local-path-storage";
/** The lab's default StorageClass. */
const STORAGE_CLASS = "local-path";
const PROVISIONER = "rancher.io/local-path";
const NONROOT = 65532;

const restricted = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ["ALL"] },
};

/** CoreDNS serving `cluster.local` from the API (no upstream: the lab has no outside resolver). */
export function corednsObjects(cluster: ClusterPlan, images: AddonImages): LabObject[] {
  const labels = { "k8s-app": "kube-dns" };
  const corefile = [
    ".:53 {",
    "    errors",
    "    health {",
    "        lameduck 5s",
    "    }",
    "    ready",
    "    kubernetes cluster.local in-addr.arpa ip6.arpa {",
    "        pods insecure",
    "        fallthrough in-addr.arpa ip6.arpa",
    "        ttl 30",
    "    }",
    "    cache 30",
    "    reload",
    "    loadbalance",
    "}",
    "",
  ].join("\n");
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "coredns", namespace: DNS_NAMESPACE } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "system:coredns" },
      rules: [
        {
          apiGroups: [""],
          resources: ["endpoints", "services", "pods", "namespaces"],
          verbs: ["list", "watch"],
        },
        { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "system:coredns" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:coredns" },
      subjects: [{ kind: "ServiceAccount", name: "coredns", namespace: DNS_NAMESPACE }],
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "coredns", namespace: DNS_NAMESPACE },
      data: { Corefile: corefile },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "coredns", namespace: DNS_NAMESPACE, labels },
      spec: {
        replicas: Math.min(2, Math.max(1, cluster.nodes.length)),
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: "coredns",
            priorityClassName: "system-cluster-critical",
            dnsPolicy: "Default",
            securityContext: {
              runAsNonRoot: true,
              runAsUser: NONROOT,
              runAsGroup: NONROOT,
              seccompProfile: { type: "RuntimeDefault" },
            },
            containers: [
              {
                name: "coredns",
                image: images.coredns,
                args: ["-conf", "/etc/coredns/Corefile"],
                ports: [
                  { name: "dns", containerPort: 53, protocol: "UDP" },
                  { name: "dns-tcp", containerPort: 53, protocol: "TCP" },
                  { name: "metrics", containerPort: 9153, protocol: "TCP" },
                ],
                readinessProbe: { httpGet: { path: "/ready", port: 8181 }, periodSeconds: 2 },
                livenessProbe: {
                  httpGet: { path: "/health", port: 8080 },
                  initialDelaySeconds: 10,
                  periodSeconds: 10,
                },
                resources: { requests: { cpu: "20m", memory: "32Mi" }, limits: { memory: "128Mi" } },
                // port 53 as a non-root user: the image's /coredns carries the file capability, and
                // the bounding set must hold it or the kernel refuses to exec the file
                securityContext: {
                  ...restricted,
                  capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] },
                },
                volumeMounts: [{ name: "config", mountPath: "/etc/coredns", readOnly: true }],
              },
            ],
            volumes: [{ name: "config", configMap: { name: "coredns" } }],
          },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "kube-dns",
        namespace: DNS_NAMESPACE,
        labels: { ...labels, "kubernetes.io/name": "CoreDNS" },
      },
      spec: {
        clusterIP: cluster.dnsIp,
        selector: labels,
        ports: [
          { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
          { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
          { name: "metrics", port: 9153, protocol: "TCP", targetPort: 9153 },
        ],
      },
    },
  ];
}

/** The provisioner's configuration: each node's volumes in that node's own directory. */
function localPathConfig(cluster: ClusterPlan): string {
  return JSON.stringify({
    nodePathMap: cluster.nodes.map((n) => ({ node: n.name, paths: [nodeFiles(n).volumesDir] })),
  });
}

/** The local-path provisioner and the default StorageClass `local-path` (WaitForFirstConsumer). */
export function localPathObjects(cluster: ClusterPlan, images: AddonImages): LabObject[] {
  const ns = STORAGE_NAMESPACE;
  const sa = "local-path-provisioner";
  const labels = { app: "local-path-provisioner" };
  const helperPod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "helper-pod" },
    spec: {
      priorityClassName: "system-node-critical",
      tolerations: [{ operator: "Exists" }],
      containers: [{ name: "helper-pod", image: images.busybox, imagePullPolicy: "IfNotPresent" }],
    },
  };
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: sa, namespace: ns } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: sa, namespace: ns },
      rules: [
        {
          apiGroups: [""],
          resources: ["pods"],
          verbs: ["get", "list", "watch", "create", "patch", "update", "delete"],
        },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: sa, namespace: ns },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: sa },
      subjects: [{ kind: "ServiceAccount", name: sa, namespace: ns }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: sa },
      rules: [
        {
          apiGroups: [""],
          resources: ["nodes", "persistentvolumeclaims", "configmaps", "pods", "pods/log"],
          verbs: ["get", "list", "watch"],
        },
        {
          apiGroups: [""],
          resources: ["persistentvolumes"],
          verbs: ["get", "list", "watch", "create", "patch", "update", "delete"],
        },
        { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
        { apiGroups: ["storage.k8s.io"], resources: ["storageclasses"], verbs: ["get", "list", "watch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: sa },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: sa },
      subjects: [{ kind: "ServiceAccount", name: sa, namespace: ns }],
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "local-path-config", namespace: ns },
      data: {
        "config.json": localPathConfig(cluster),
        setup: ["#!/bin/sh", "set -eu", 'mkdir -m 0777 -p "$VOL_DIR"', ""].join("\n"),
        teardown: ["#!/bin/sh", "set -eu", 'rm -rf "$VOL_DIR"', ""].join("\n"),
        "helperPod.yaml": JSON.stringify(helperPod),
      },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "local-path-provisioner", namespace: ns, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: sa,
            priorityClassName: "system-node-critical",
            securityContext: {
              runAsNonRoot: true,
              runAsUser: NONROOT,
              runAsGroup: NONROOT,
              seccompProfile: { type: "RuntimeDefault" },
            },
            containers: [
              {
                name: "local-path-provisioner",
                image: images.localPathProvisioner,
                command: [
                  "local-path-provisioner",
                  "--debug",
                  "start",
                  "--config",
                  "/etc/config/config.json",
                  "--service-account-name",
                  sa,
                  "--helper-image",
                  images.busybox,
                ],
                env: [
                  { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
                  { name: "CONFIG_MOUNT_PATH", value: "/etc/config/" },
                ],
                resources: { requests: { cpu: "10m", memory: "32Mi" } },
                securityContext: restricted,
                volumeMounts: [{ name: "config", mountPath: "/etc/config/", readOnly: true }],
              },
            ],
            volumes: [{ name: "config", configMap: { name: "local-path-config" } }],
          },
        },
      },
    },
    {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: {
        name: STORAGE_CLASS,
        annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
      },
      provisioner: PROVISIONER,
      volumeBindingMode: "WaitForFirstConsumer",
      reclaimPolicy: "Delete",
    },
  ];
}
