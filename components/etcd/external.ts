import * as pulumi from "@pulumi/pulumi";
import { validateHttpsUrl } from "../../lib/validation/urls";
import { ErrorCollector, check } from "../../lib/validation/errors";
import { checkedWhenKnown } from "../../lib/validation/deferred";
import { checkCertificatePem, checkKeyOfCertificate } from "../../lib/pki/client-check";

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

/** Validates the external-etcd settings (no resources are created for this mode); every problem together. */
export function validateExternalEtcd(config: EtcdExternalConfig | undefined): EtcdExternalConfig {
  check(config !== undefined && config !== null, "external", 'is required when mode is "external"');
  const errors = new ErrorCollector();
  errors.attempt(() => {
    check(
      Array.isArray(config.endpoints) && config.endpoints.length > 0,
      "external.endpoints",
      "must list at least one client URL",
      "https://host:2379 URLs",
    );
    config.endpoints.forEach((url, i) =>
      errors.attempt(() => validateHttpsUrl(`external.endpoints[${i}]`, url)),
    );
  });
  for (const key of ["caCertPem", "clientCertPem", "clientKeyPem"] as const) {
    errors.attempt(() =>
      check(
        config[key] !== undefined && config[key] !== null && config[key] !== "",
        `external.${key}`,
        "is required",
        "a PEM (string or secret Output)",
      ),
    );
  }
  errors.throwIfAny();
  // plain parts are checked now (every problem together), secret ones once known: the control plane
  // is built from the checked values
  const now = new Date();
  const checkCa = (pem: string) => void checkCertificatePem("external.caCertPem", pem, now);
  const checkClient = (cert: string, key: string) =>
    checkKeyOfCertificate(
      "external.clientKeyPem",
      key,
      checkCertificatePem("external.clientCertPem", cert, now),
    );
  const plain = (v: pulumi.Input<string>): v is string => typeof v === "string";
  if (plain(config.caCertPem)) errors.attempt(() => checkCa(config.caCertPem as string));
  if (plain(config.clientCertPem)) {
    errors.attempt(() =>
      plain(config.clientKeyPem)
        ? checkClient(config.clientCertPem as string, config.clientKeyPem)
        : checkCertificatePem("external.clientCertPem", config.clientCertPem as string, now),
    );
  }
  errors.throwIfAny();
  const caCertPem = plain(config.caCertPem) ? config.caCertPem : checkedWhenKnown(config.caCertPem, checkCa);
  const clientCertPem = plain(config.clientCertPem)
    ? config.clientCertPem
    : checkedWhenKnown(
        config.clientCertPem,
        (cert) => void checkCertificatePem("external.clientCertPem", cert, now),
      );
  const clientKeyPem =
    plain(config.clientCertPem) && plain(config.clientKeyPem)
      ? config.clientKeyPem
      : pulumi.all([config.clientCertPem, config.clientKeyPem]).apply(([cert, key]) => {
          checkClient(cert, key);
          return key;
        });
  return { endpoints: config.endpoints, caCertPem, clientCertPem, clientKeyPem };
}
