/**
 * The plain Kubernetes object every manifest builder returns. Apart from apply.ts (which turns objects into
 * Pulumi resources) so that the pure builders import nothing that registers resources.
 */

/** A plain Kubernetes object as synthesized by cdk8s. */
export interface KubeObject {
  /** Group and version, e.g. `apps/v1` (`v1` for the core group). */
  readonly apiVersion: string;
  /** Kind, e.g. `Deployment`. */
  readonly kind: string;
  /** Object metadata; `name` is required, the rest (labels, annotations …) is passed through. */
  readonly metadata: {
    /** Object name; with the kind and namespace, part of the Pulumi resource name. */
    readonly name: string;
    /** Namespace of a namespaced object. @default - none (cluster-scoped, or the provider's default) */
    readonly namespace?: string;
    readonly [key: string]: unknown;
  };
  readonly [field: string]: unknown;
}

/**
 * Where a Secret goes whose values only exist as Pulumi Outputs (tokens, keys, kubeconfigs): the pure
 * builders say where, the component fills `data` and creates it natively (lib/kube/secrets.ts).
 */
export interface SecretPlace {
  readonly name: string;
  readonly namespace: string;
  readonly labels?: Record<string, string>;
  /** @default "Opaque" */
  readonly type?: string;
}
