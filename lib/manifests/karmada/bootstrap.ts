import { Chart } from "cdk8s";
import { k8s } from "cdk8s-plus-33";
import { stringify } from "yaml";
import type { KubeObject } from "../../kube/object";
import { PLACEHOLDERS } from "../placeholders";
import { synthChart } from "./chart";
import { KARMADA_RBAC_DEFAULTS_LABEL, RBAC_GROUP } from "./rbac";

/**
 * Names and identities used by pull-mode registration (`karmadactl register` with a bootstrap token).
 * They are wire contracts with karmadactl, karmada-agent and karmada-controller-manager's
 * `agentcsrapproving` controller, so they must match upstream exactly.
 */
export const BOOTSTRAP = {
  /** Namespace that anonymous clients may read the cluster-info ConfigMap from. */
  publicNamespace: "kube-public",
  clusterInfoConfigMap: "cluster-info",
  /** Key of the cluster-info ConfigMap holding the kubeconfig (signed by the bootstrapsigner controller). */
  clusterInfoKey: "kubeconfig",
  clusterInfoReader: "system:karmada:bootstrap-signer-clusterinfo",
  anonymousUser: "system:anonymous",
  /** Group that `karmadactl token create` puts its bootstrap tokens in. */
  bootstrapTokenGroup: "system:bootstrappers:karmada:default-cluster-token",
  /** Group of every karmada-agent client certificate. */
  agentGroup: "system:karmada:agents",
  agentBootstrapBinding: "system:karmada:agent-bootstrap",
  /** Built-in ClusterRole that allows creating and reading CSRs. */
  nodeBootstrapperRole: "system:node-bootstrapper",
  autoApproveRole: "system:karmada:certificatesigningrequest:autoapprover",
  autoApproveBinding: "system:karmada:agent-autoapprove-bootstrap",
  selfAutoApproveRole: "system:karmada:certificatesigningrequest:selfautoapprover",
  selfAutoApproveBinding: "system:karmada:agent-autoapprove-certificate-rotation",
  rbacGeneratorRole: "system:karmada:agent-rbac-generator",
  /** User `karmadactl register` acts as (through a short-lived certificate) to create each agent's RBAC. */
  rbacGeneratorUser: "system:karmada:agent:rbac-generator",
} as const;

/**
 * The kubeconfig published in cluster-info: exactly one cluster, named "" (karmadactl register requires
 * a single cluster and looks up the unnamed one), no users or credentials.
 * @param server API server URL members use.
 * @param caBundle base64 of the CA PEM (kubeconfig `certificate-authority-data`).
 */
function clusterInfoKubeconfig(server: string, caBundle: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "", cluster: { server, "certificate-authority-data": caBundle } }],
    contexts: [],
    "current-context": "",
    preferences: {},
    users: [],
  });
}

type Subject = { kind: "User" | "Group"; name: string };

function addClusterRoleBinding(chart: Chart, name: string, role: string, subject: Subject): void {
  new k8s.KubeClusterRoleBinding(chart, `${name}-binding`, {
    metadata: { name, labels: { ...KARMADA_RBAC_DEFAULTS_LABEL } },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: role },
    subjects: [{ apiGroup: RBAC_GROUP, ...subject }],
  });
}

function addClusterRole(
  chart: Chart,
  name: string,
  rule: { apiGroups: string[]; resources: string[]; verbs: string[] },
) {
  new k8s.KubeClusterRole(chart, `${name}-role`, {
    metadata: { name, labels: { ...KARMADA_RBAC_DEFAULTS_LABEL } },
    rules: [rule],
  });
}

/**
 * What pull-mode registration needs inside karmada-apiserver (karmadactl init and the Helm chart create
 * it; the official operator does not, so `karmadactl register` fails there with 403):
 * - `kube-public/cluster-info` with the API server URL and CA ({@link PLACEHOLDERS.apiServerUrl},
 *   {@link PLACEHOLDERS.caBundle} embedded in the kubeconfig text: substitute with `interpolate`), readable
 *   by anonymous users, who verify it against the token's JWS signature and the CA pin;
 * - bootstrap-token holders may create CSRs, and have them auto-approved (`clusteragent`);
 * - agents may renew their own certificates (`selfclusteragent`);
 * - the rbac-generator identity may create each agent's narrow RBAC.
 * karmada-apiserver needs `--enable-bootstrap-token-auth` and anonymous auth; kube-controller-manager
 * needs the bootstrapsigner, tokencleaner and csrsigning controllers.
 */
export function pullModeBootstrap(): KubeObject[] {
  const ns = BOOTSTRAP.publicNamespace;
  return synthChart("karmada-bootstrap", (chart) => {
    new k8s.KubeConfigMap(chart, BOOTSTRAP.clusterInfoConfigMap, {
      metadata: { name: BOOTSTRAP.clusterInfoConfigMap, namespace: ns },
      data: {
        [BOOTSTRAP.clusterInfoKey]: clusterInfoKubeconfig(PLACEHOLDERS.apiServerUrl, PLACEHOLDERS.caBundle),
      },
    });
    new k8s.KubeRole(chart, `${BOOTSTRAP.clusterInfoReader}-role`, {
      metadata: {
        name: BOOTSTRAP.clusterInfoReader,
        namespace: ns,
        labels: { ...KARMADA_RBAC_DEFAULTS_LABEL },
      },
      rules: [
        {
          apiGroups: [""],
          resources: ["configmaps"],
          resourceNames: [BOOTSTRAP.clusterInfoConfigMap],
          verbs: ["get"],
        },
      ],
    });
    new k8s.KubeRoleBinding(chart, `${BOOTSTRAP.clusterInfoReader}-binding`, {
      metadata: {
        name: BOOTSTRAP.clusterInfoReader,
        namespace: ns,
        labels: { ...KARMADA_RBAC_DEFAULTS_LABEL },
      },
      roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: BOOTSTRAP.clusterInfoReader },
      subjects: [{ apiGroup: RBAC_GROUP, kind: "User", name: BOOTSTRAP.anonymousUser }],
    });

    const tokenGroup: Subject = { kind: "Group", name: BOOTSTRAP.bootstrapTokenGroup };
    addClusterRoleBinding(chart, BOOTSTRAP.agentBootstrapBinding, BOOTSTRAP.nodeBootstrapperRole, tokenGroup);

    addClusterRole(chart, BOOTSTRAP.autoApproveRole, {
      apiGroups: ["certificates.k8s.io"],
      resources: ["certificatesigningrequests/clusteragent"],
      verbs: ["create"],
    });
    addClusterRoleBinding(chart, BOOTSTRAP.autoApproveBinding, BOOTSTRAP.autoApproveRole, tokenGroup);

    addClusterRole(chart, BOOTSTRAP.selfAutoApproveRole, {
      apiGroups: ["certificates.k8s.io"],
      resources: ["certificatesigningrequests/selfclusteragent"],
      verbs: ["create"],
    });
    addClusterRoleBinding(chart, BOOTSTRAP.selfAutoApproveBinding, BOOTSTRAP.selfAutoApproveRole, {
      kind: "Group",
      name: BOOTSTRAP.agentGroup,
    });

    // Broad on purpose (upstream's design): register narrows it into per-agent roles it then binds.
    addClusterRole(chart, BOOTSTRAP.rbacGeneratorRole, { apiGroups: ["*"], resources: ["*"], verbs: ["*"] });
    addClusterRoleBinding(chart, BOOTSTRAP.rbacGeneratorRole, BOOTSTRAP.rbacGeneratorRole, {
      kind: "User",
      name: BOOTSTRAP.rbacGeneratorUser,
    });
  });
}
