import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { SecretPlace } from "./object";

/** A Secret to create: where it goes and its values. */
export interface SecretSpec extends SecretPlace {
  /** Keys → values; every value is wrapped in pulumi.secret regardless of where it came from. */
  readonly data: Record<string, pulumi.Input<string>>;
}

/**
 * Creates a Secret whose content is a Pulumi secret end to end: values are wrapped in `pulumi.secret`
 * and passed as `stringData`, which the SDK also marks as an additional secret output.
 */
export function createSecret(
  pulumiName: string,
  spec: SecretSpec,
  opts: pulumi.CustomResourceOptions,
): k8s.core.v1.Secret {
  const stringData: Record<string, pulumi.Output<string>> = {};
  for (const [key, value] of Object.entries(spec.data)) {
    stringData[key] = pulumi.secret(value);
  }
  return new k8s.core.v1.Secret(
    pulumiName,
    {
      metadata: { name: spec.name, namespace: spec.namespace, labels: spec.labels },
      type: spec.type ?? "Opaque",
      stringData,
    },
    { ...opts, additionalSecretOutputs: ["data", "stringData"] },
  );
}
