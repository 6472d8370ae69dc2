import { check, show } from "./errors";

/** `repository[:tag][@sha256:digest]`, no whitespace: what a container runtime pulls. */
const IMAGE_REFERENCE = /^[a-z0-9][a-z0-9._\-/:]*(@sha256:[0-9a-f]{64})?$/i;

/**
 * Validates an image reference. The API server takes any string in a pod template and refuses the pods
 * only when they are created — long after `pulumi up` reported the Deployment or CronJob done.
 */
export function validateImageReference(field: string, image: unknown): string {
  check(
    typeof image === "string" && IMAGE_REFERENCE.test(image),
    field,
    `${show(image)} is not an image reference`,
    "repository[:tag][@sha256:digest]",
  );
  return image;
}
