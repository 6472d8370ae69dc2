import { KarmadaComponent } from "../../catalog/components";
import { CERTIFICATES_CHECKSUM_ANNOTATION, PLACEHOLDERS } from "../placeholders";

/** Label every object of ours carries: who manages it. */
export const MANAGED_BY = { "app.kubernetes.io/managed-by": "pulumi-karmada" } as const;
/** Label every object of ours carries: what it belongs to. */
export const PART_OF = { "app.kubernetes.io/part-of": "karmada" } as const;

/**
 * Annotation that tells @pulumi/kubernetes not to wait for readiness. Only for the test bed, whose API
 * servers have no kubelets (pods never run); production always waits.
 */
export const SKIP_AWAIT_ANNOTATION = "pulumi.com/skipAwait";

export { CERTIFICATES_CHECKSUM_ANNOTATION };

/** The pod-template annotation of {@link CERTIFICATES_CHECKSUM_ANNOTATION}, its value still a placeholder. */
export const certificatesChecksumAnnotation = (): Record<string, string> => ({
  [CERTIFICATES_CHECKSUM_ANNOTATION]: PLACEHOLDERS.certificatesChecksum,
});

/** The `app.kubernetes.io/name` of a workload's pod template, or undefined for an object without one. */
export function podTemplateName(obj: {
  readonly spec?: unknown;
  readonly [field: string]: unknown;
}): string | undefined {
  const spec = obj.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined;
  return spec?.template?.metadata?.labels?.["app.kubernetes.io/name"];
}

/**
 * Labels that select a workload's pods. Immutable once a Deployment or StatefulSet exists, so they hold
 * only the name and the project, never user labels.
 */
export function selectorLabels(name: KarmadaComponent | string): Record<string, string> {
  return { "app.kubernetes.io/name": name, ...PART_OF };
}

/** Labels of an object: the user's extra labels, overridden by ours so selectors and tooling keep working. */
export function objectLabels(
  name: string,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return { ...extra, ...selectorLabels(name), ...MANAGED_BY };
}

/** Annotations of a top-level object: the user's plus, in the test bed, the skip-await marker. */
export function objectAnnotations(
  awaitWorkloads: boolean,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> | undefined {
  const annotations = { ...extra, ...(awaitWorkloads ? {} : { [SKIP_AWAIT_ANNOTATION]: "true" }) };
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}
