/**
 * Reads a stack's state (`exportStack`): which resources exist, and for Kubernetes objects which cluster
 * (provider) they were applied to, so tests can check each one against the real API server.
 */
import { Stack } from "@pulumi/pulumi/automation";
import { parseUrn } from "../../lib/preview/urn";
import type { ObjectRef } from "../kube/objects";

/** One resource of the state. */
export interface StateResource {
  readonly urn: string;
  readonly type: string;
  readonly custom: boolean;
  /** Provider reference `<provider urn>::<id>`. */
  readonly provider?: string;
  readonly parent?: string;
  /** Absent for components (their inputs are not recorded). */
  readonly inputs?: Record<string, any>;
  readonly outputs: Record<string, any>;
}

/** A Kubernetes object of the state, with the logical name of the provider that applied it. */
export interface KubeObjectInState extends ObjectRef {
  readonly urn: string;
  /** e.g. `host` (the host cluster) or `karmada-karmada` (the control plane's karmada-apiserver provider). */
  readonly providerName: string;
}

/** Every resource in the stack's current state. */
export async function stateResources(stack: Stack): Promise<StateResource[]> {
  const exported = await stack.exportStack();
  return (exported.deployment?.resources ?? []) as StateResource[];
}

/** Logical name of the provider resource a provider reference points at. */
function providerName(reference: string): string {
  return parseUrn(reference.slice(0, reference.lastIndexOf("::"))).name;
}

/** The Kubernetes objects among `resources` (by their live outputs), each with its provider's name. */
export function kubeObjectsInState(resources: readonly StateResource[]): KubeObjectInState[] {
  return resources
    .filter((r) => r.custom && r.type.startsWith("kubernetes:") && r.provider && r.outputs?.metadata?.name)
    .map((r) => ({
      urn: r.urn,
      providerName: providerName(r.provider!),
      apiVersion: r.outputs.apiVersion,
      kind: r.outputs.kind,
      name: r.outputs.metadata.name,
      namespace: r.outputs.metadata.namespace,
    }));
}

/**
 * The resources of each leaf certificate in `resources` (`<prefix>-cert`, its `-key` and `-csr`), by URN:
 * what a rotation replaces. `include` narrows the certificates (e.g. one component's subtree).
 */
export function leafCertificateResources(
  resources: readonly StateResource[],
  include: (urn: string) => boolean = () => true,
): Set<string> {
  const certs = resources.filter(
    (r) => r.type === "tls:index/locallySignedCert:LocallySignedCert" && include(r.urn),
  );
  return new Set(
    certs.flatMap((cert) => {
      const [prefix, name] = cert.urn
        .replace(/-cert$/, "")
        .split("$tls:index/locallySignedCert:LocallySignedCert::");
      return [
        cert.urn,
        `${prefix}$tls:index/privateKey:PrivateKey::${name}-key`,
        `${prefix}$tls:index/certRequest:CertRequest::${name}-csr`,
      ];
    }),
  );
}
