import { renderFlags } from "../controlplane/flags-render";
import type { KubeObject, SecretPlace } from "../kube/object";
import { objectAnnotations } from "../manifests/workloads/metadata";
import { containerSecurityContext, podSecurityContext } from "../manifests/workloads/pod";
import { MemberSettings } from "./settings";
import { AGENT_OBJECTS, CLUSTER_NAMESPACE, KARMADA_SYSTEM_LABEL } from "./names";
import { clusterRoleWithBinding, memberAccessRules } from "./rbac";

/** Labels of the agent's pods (karmadactl's selector, kept so its tooling finds them). */
const AGENT_POD_LABELS = { app: AGENT_OBJECTS.name } as const;
/** Health port of the agent (karmadactl's `--health-probe-bind-address`). */
const AGENT_HEALTH_PORT = 10357;
/** Pod annotation carrying the credential rotation trigger, so a new certificate restarts the agent. */
const CREDENTIAL_ROTATION_ANNOTATION = "karmada.pulumi.com/credential-rotation";

/** Path of the agent's kubeconfig inside its container: `<mount dir>/<Secret key>`. */
const AGENT_KUBECONFIG_PATH = `${AGENT_OBJECTS.kubeconfigDir}/${AGENT_OBJECTS.kubeconfigSecret}`;

/** What the agent Deployment is built from besides the member settings. */
export interface AgentWorkload {
  /** Full image reference (from the control plane's catalog and registry settings). */
  readonly image: string;
  readonly imagePullPolicy: string;
  /** Wait for the rollout (false only in the pod-less test bed). */
  readonly awaitRollout: boolean;
  /** Changes when the agent credential is reissued; restarts the pods. */
  readonly rotationTrigger: string;
}

/**
 * karmada-agent's flags, the set `karmadactl register` passes (v1.18) — `karmadactl unregister` reads
 * `--karmada-kubeconfig` back from the Deployment — sorted, with `extraArgs` winning.
 */
export function agentFlags(settings: MemberSettings, namespace: string): string[] {
  const pull = settings.pull!;
  return renderFlags(
    {
      "karmada-kubeconfig": AGENT_KUBECONFIG_PATH,
      "cluster-name": settings.clusterName,
      "cluster-api-endpoint": settings.apiEndpoint,
      "cluster-provider": settings.provider ?? "",
      "cluster-region": settings.region ?? "",
      "cluster-zones": settings.zones.join(","),
      controllers: "*",
      "proxy-server-address": settings.proxyURL ?? "",
      "leader-elect-resource-namespace": namespace,
      "cluster-namespace": CLUSTER_NAMESPACE,
      "cluster-status-update-frequency": "10s",
      "metrics-bind-address": ":8080",
      "health-probe-bind-address": `0.0.0.0:${AGENT_HEALTH_PORT}`,
      "report-secrets": pull.reportSecrets ? undefined : "None",
      v: "2",
    },
    pull.extraArgs,
  );
}

/** The agent's objects in the member, in install order. */
export interface AgentMemberObjects {
  /** The agent's namespace (none when `pull.createNamespace` is off). */
  readonly namespace: KubeObject[];
  /** ServiceAccount `karmada-agent-sa`, ClusterRole/-Binding `karmada-agent`. */
  readonly access: KubeObject[];
  /** Secret `karmada-kubeconfig` (key `karmada-kubeconfig`): the agent's kubeconfig for karmada-apiserver. */
  readonly kubeconfigSecret: SecretPlace;
  /** Deployment `karmada-agent`, last: it mounts the kubeconfig Secret. */
  readonly deployment: KubeObject[];
}

/**
 * The agent's objects in the member, as `karmadactl register` names them: (namespace), ServiceAccount
 * `karmada-agent-sa`, ClusterRole/-Binding `karmada-agent` (rules of `permissions`), Deployment
 * `karmada-agent` mounting Secret `karmada-kubeconfig` (created natively: it holds a key). Flags are in
 * `command`, where `karmadactl unregister` looks for them.
 */
export function agentMemberObjects(settings: MemberSettings, workload: AgentWorkload): AgentMemberObjects {
  const labels = { ...KARMADA_SYSTEM_LABEL };
  const ns = settings.pull!.namespace;
  const flags = agentFlags(settings, ns);
  const deployment: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: AGENT_OBJECTS.name,
      namespace: ns,
      labels: { ...AGENT_POD_LABELS },
      annotations: objectAnnotations(workload.awaitRollout),
    },
    spec: {
      replicas: settings.pull!.replicas,
      selector: { matchLabels: { ...AGENT_POD_LABELS } },
      template: {
        metadata: {
          labels: { ...AGENT_POD_LABELS },
          annotations: { [CREDENTIAL_ROTATION_ANNOTATION]: workload.rotationTrigger },
        },
        spec: {
          serviceAccountName: AGENT_OBJECTS.serviceAccount,
          securityContext: podSecurityContext(),
          tolerations: [{ key: "node-role.kubernetes.io/master", operator: "Exists" }],
          containers: [
            {
              name: AGENT_OBJECTS.name,
              image: workload.image,
              imagePullPolicy: workload.imagePullPolicy,
              command: ["/bin/karmada-agent", ...flags],
              ports: [{ name: "metrics", containerPort: 8080, protocol: "TCP" }],
              livenessProbe: {
                httpGet: { path: "/healthz", port: AGENT_HEALTH_PORT, scheme: "HTTP" },
                initialDelaySeconds: 15,
                periodSeconds: 15,
                timeoutSeconds: 5,
                failureThreshold: 3,
              },
              securityContext: containerSecurityContext(),
              volumeMounts: [
                { name: "kubeconfig", mountPath: AGENT_OBJECTS.kubeconfigDir, readOnly: true },
                { name: "tmp", mountPath: "/tmp" },
              ],
            },
          ],
          volumes: [
            { name: "kubeconfig", secret: { secretName: AGENT_OBJECTS.kubeconfigSecret } },
            { name: "tmp", emptyDir: {} },
          ],
        },
      },
    },
  };
  return {
    namespace: settings.pull!.createNamespace
      ? [{ apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels } }]
      : [],
    access: [
      {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: AGENT_OBJECTS.serviceAccount, namespace: ns, labels },
      },
      ...clusterRoleWithBinding(
        AGENT_OBJECTS.name,
        memberAccessRules(settings.permissions, settings.extraRules),
        { kind: "ServiceAccount", name: AGENT_OBJECTS.serviceAccount, namespace: ns },
        labels,
      ),
    ],
    kubeconfigSecret: { name: AGENT_OBJECTS.kubeconfigSecret, namespace: ns, labels },
    deployment: [deployment],
  };
}
