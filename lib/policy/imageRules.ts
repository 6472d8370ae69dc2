/**
 * Images come from the registries the estate is allowed to pull from (a mirror for offline estates,
 * a scanned corporate registry): every container of every workload object the stack applies.
 */
import { PolicyParameters } from "./config";
import { PolicySubject, PolicyViolation, prop } from "./subject";

/** Where a workload kind keeps its pod spec. */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  "kubernetes:core/v1:Pod": ["spec"],
  "kubernetes:apps/v1:Deployment": ["spec", "template", "spec"],
  "kubernetes:apps/v1:StatefulSet": ["spec", "template", "spec"],
  "kubernetes:apps/v1:DaemonSet": ["spec", "template", "spec"],
  "kubernetes:apps/v1:ReplicaSet": ["spec", "template", "spec"],
  "kubernetes:batch/v1:Job": ["spec", "template", "spec"],
  "kubernetes:batch/v1:CronJob": ["spec", "jobTemplate", "spec", "template", "spec"],
};

/** Whether `image` is in `registry` (host[:port][/path]): a path prefix, never a mere string prefix. */
export function imageFrom(image: string, registry: string): boolean {
  return image.startsWith(`${registry}/`);
}

/** The images of a pod spec's containers, init containers included. */
function images(podSpec: unknown): string[] {
  return ["initContainers", "containers"].flatMap((field) => {
    const list = prop(podSpec, field);
    return Array.isArray(list)
      ? list.map((c) => prop(c, "image")).filter((i): i is string => typeof i === "string")
      : [];
  });
}

/** Containers whose image is outside `allowedRegistries` (no finding while the list is empty). */
export function imagesFromAllowedRegistries(
  resources: readonly PolicySubject[],
  params: PolicyParameters,
): PolicyViolation[] {
  const allowed = params.allowedRegistries;
  if (allowed.length === 0) return [];
  return resources.flatMap((r) => {
    const path = POD_SPEC_PATHS[r.type];
    if (!path) return [];
    const outside = images(prop(r.props, ...path)).filter((i) => !allowed.some((reg) => imageFrom(i, reg)));
    if (outside.length === 0) return [];
    return [
      {
        urn: r.urn,
        message:
          `${r.name} pulls ${outside.join(", ")}, outside the allowed registries (${allowed.join(", ")}). ` +
          `Fix: images.registry (the component's) or the addon's image settings pointing at an allowed registry.`,
      },
    ];
  });
}
