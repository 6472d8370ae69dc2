/**
 * The install order of a control plane, per mode: named phases, each after the phases it waits for —
 * what the official karmada-operator lists as its ordered install tasks (certs → etcd → apiserver →
 * CRDs/webhooks → components → wait). KarmadaControlPlane wires its `dependsOn` from these lists
 * (components/controlplane/installGraph.ts), and docs/architecture.md shows {@link renderInstallOrder}'s
 * text of them, checked by a unit test. Certificates are not a phase: every resource that needs one
 * takes it as an input, so the engine orders them by data.
 */

/** A named group of the control plane's resources that install together. */
export type InstallPhase =
  | "etcd"
  | "secrets"
  | "karmada-apiserver"
  | "aggregated-apiserver"
  | "karmada-provider"
  | "karmada-namespaces"
  | "crds"
  | "webhook-configurations"
  | "apiservices"
  | "rbac"
  | "bootstrap"
  | "controllers";

/** One phase of an install order. */
export interface InstallStep {
  readonly phase: InstallPhase;
  /** The phases whose resources this phase's resources wait for; each comes earlier in the list. */
  readonly after: readonly InstallPhase[];
  /** What the phase installs, in a few words (the docs' line). */
  readonly installs: string;
}

/** Phases whose resources go through the Karmada provider: they wait for it by using it. */
export const THROUGH_KARMADA_PROVIDER: readonly InstallPhase[] = [
  "karmada-namespaces",
  "crds",
  "webhook-configurations",
  "apiservices",
  "rbac",
  "bootstrap",
];

/** The phases both modes share, by name (the lists below put them in each mode's order). */
const STEP = {
  provider: {
    phase: "karmada-provider",
    after: ["karmada-apiserver"],
    installs: "Karmada provider, configured once /readyz answers at the external endpoint",
  },
  namespaces: {
    phase: "karmada-namespaces",
    after: ["karmada-provider"],
    installs: "karmada-system, karmada-cluster … inside Karmada",
  },
  crds: { phase: "crds", after: ["karmada-namespaces"], installs: "the CRD bundle (loaded asynchronously)" },
  webhooks: {
    phase: "webhook-configurations",
    after: ["crds"],
    installs: "Mutating/ValidatingWebhookConfiguration",
  },
  apiServices: {
    phase: "apiservices",
    after: ["karmada-namespaces", "aggregated-apiserver"],
    installs: "APIService v1alpha1.cluster.karmada.io (and the other aggregated APIs)",
  },
  rbac: { phase: "rbac", after: ["karmada-provider"], installs: "ClusterRoles and bindings inside Karmada" },
  bootstrap: {
    phase: "bootstrap",
    after: ["karmada-namespaces"],
    installs: "kube-public/cluster-info and the bootstrap-token RBAC (pull mode)",
  },
} as const satisfies Record<string, InstallStep>;

/** The controllers wait for every Karmada-side phase: webhooks fail closed, their APIs must be served. */
const CONTROLLERS_AFTER: readonly InstallPhase[] = ["aggregated-apiserver", ...THROUGH_KARMADA_PROVIDER];

/** Containerized: workloads on the host cluster. */
export const CONTAINERIZED_INSTALL_ORDER: readonly InstallStep[] = [
  { phase: "etcd", after: [], installs: "the EtcdCluster given (its StatefulSet, or external endpoints)" },
  {
    phase: "secrets",
    after: [],
    installs: "host namespace; per component a Secret of certificates and kubeconfig",
  },
  {
    phase: "karmada-apiserver",
    after: ["secrets", "etcd"],
    installs: "karmada-apiserver Deployment and Service",
  },
  {
    phase: "aggregated-apiserver",
    after: ["karmada-apiserver"],
    installs: "karmada-aggregated-apiserver Deployment and Service",
  },
  STEP.provider,
  STEP.namespaces,
  STEP.crds,
  STEP.webhooks,
  STEP.apiServices,
  STEP.rbac,
  STEP.bootstrap,
  {
    phase: "controllers",
    after: CONTROLLERS_AFTER,
    installs: "controller-manager, scheduler, webhook, kube-controller-manager, optional components",
  },
];

/**
 * Hosts: services on machines over SSH, each phase ready on every host before the next; changes roll
 * host by host (lib/controlplane/hosts/plan.ts orders the commands inside a phase).
 */
export const HOSTS_INSTALL_ORDER: readonly InstallStep[] = [
  { phase: "etcd", after: [], installs: "the EtcdCluster given (on hosts, or external endpoints)" },
  {
    phase: "karmada-apiserver",
    after: ["etcd"],
    installs: "karmada-apiserver and kube-controller-manager, ready on every host",
  },
  STEP.provider,
  STEP.namespaces,
  STEP.crds,
  {
    // after the CRDs, so that a release upgrade lands them before Karmada's own API servers restart; on
    // each host after its own karmada-apiserver (lib/controlplane/hosts/plan.ts), which the CRDs followed
    phase: "aggregated-apiserver",
    after: ["crds"],
    installs:
      "karmada-aggregated-apiserver and the other API servers (each after its host's karmada-apiserver), ready on every host",
  },
  STEP.webhooks,
  STEP.apiServices,
  STEP.rbac,
  STEP.bootstrap,
  {
    phase: "controllers",
    after: CONTROLLERS_AFTER,
    installs: "controller-manager, scheduler, webhook, optional components, ready on every host",
  },
];

/**
 * Problems of an order, one sentence each: a phase listed twice, or waiting for a phase that is not
 * listed before it. Empty for a sound order.
 */
export function installOrderProblems(order: readonly InstallStep[]): string[] {
  const problems: string[] = [];
  const seen = new Set<InstallPhase>();
  for (const step of order) {
    if (seen.has(step.phase)) problems.push(`${step.phase} is listed twice`);
    for (const before of step.after) {
      if (!seen.has(before))
        problems.push(`${step.phase} waits for ${before}, which is not listed before it`);
    }
    seen.add(step.phase);
  }
  return problems;
}

/**
 * The order as docs/architecture.md shows it: per phase a line with what it comes after, and one with
 * what it installs.
 */
export function renderInstallOrder(order: readonly InstallStep[]): string {
  const width = Math.max(...order.map((s) => s.phase.length));
  return order
    .map((s) => {
      const after = s.after.length ? `after ${s.after.join(", ")}` : "first";
      return `${s.phase.padEnd(width)}  ${after}\n${" ".repeat(width + 2)}${s.installs}`;
    })
    .join("\n");
}
