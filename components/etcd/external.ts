import * as pulumi from "@pulumi/pulumi";
import { validateHttpsUrl } from "../../lib/validation/urls";
import { check } from "../../lib/validation/errors";

/** An etcd cluster that already exists and is run by someone else. */
export interface EtcdExternalConfig {
  /** Client URLs, e.g. `https://10.0.0.10:2379`. */
  readonly endpoints: string[];
  /** PEM of the CA that signed the etcd server certificates. */
  readonly caCertPem: pulumi.Input<string>;
  /** PEM of a client certificate etcd accepts. */
  readonly clientCertPem: pulumi.Input<string>;
  /** PEM of the client certificate's private key; wrapped in a Pulumi secret. */
  readonly clientKeyPem: pulumi.Input<string>;
}

/** Validates the external-etcd settings (no resources are created for this mode). */
export function validateExternalEtcd(config: EtcdExternalConfig | undefined): EtcdExternalConfig {
  check(config !== undefined, "external", 'is required when mode is "external"');
  check(config.endpoints.length > 0, "external.endpoints", "must list at least one client URL");
  config.endpoints.forEach((url, i) => validateHttpsUrl(`external.endpoints[${i}]`, url));
  return config;
}
