import * as pulumi from "@pulumi/pulumi";
import { ConfigError, ErrorCollector, check, show } from "../validation/errors";
import { validateInteger } from "../validation/numbers";
import { checkCaPem, checkValidityPair } from "./ca-check";
import { DEFAULT_CA_VALIDITY_HOURS, DEFAULT_LEAF_VALIDITY_HOURS } from "./certificates";
import { CaSource } from "./issue-args";
import { RotationSettings, renewBeforeHours } from "./rotation";

/** The PKI settings a component takes (control plane `pki`, EtcdCluster `pki`). */
export interface PkiConfigToCheck {
  readonly caValidityHours?: number;
  readonly leafValidityHours?: number;
  readonly rotation?: RotationSettings;
}

/**
 * Checks a component's PKI settings against each other before anything is registered: validities are
 * whole hours, a generated CA outlives the leaves it signs, the renew window fits inside a leaf's life,
 * and every CA brought by the user (by its field name under `field`, e.g. `karmadaCa`) is a CA that can
 * sign, whose key matches, and that stays valid as long as a leaf issued now. A CA given as an Output
 * (a secret from config) cannot be read before registration; its problems surface when the tls
 * provider signs with it.
 */
export function validatePkiConfig(
  field: string,
  pki: PkiConfigToCheck,
  cas: Readonly<Record<string, CaSource | undefined>>,
  generatesCa: boolean,
  now: Date = new Date((pki.rotation?.now ?? Date.now)()),
): void {
  if (typeof pki !== "object" || pki === null) throw new ConfigError(field, `${show(pki)} is not an object`);
  const errors = new ErrorCollector();
  const caHours = errors.attempt(() => {
    validateInteger(`${field}.caValidityHours`, pki.caValidityHours ?? DEFAULT_CA_VALIDITY_HOURS, 1);
    return pki.caValidityHours ?? DEFAULT_CA_VALIDITY_HOURS;
  });
  const leafHours = errors.attempt(() => {
    validateInteger(`${field}.leafValidityHours`, pki.leafValidityHours ?? DEFAULT_LEAF_VALIDITY_HOURS, 2);
    return pki.leafValidityHours ?? DEFAULT_LEAF_VALIDITY_HOURS;
  });
  if (generatesCa && caHours !== undefined && leafHours !== undefined) {
    errors.attempt(() => checkValidityPair(`${field}.leafValidityHours`, caHours, leafHours));
  }
  const rotation = pki.rotation ?? {};
  if (leafHours !== undefined && rotation.renewBeforeHours !== undefined) {
    errors.attempt(() =>
      renewBeforeHours(leafHours, rotation.renewBeforeHours, `${field}.rotation.renewBeforeHours`),
    );
  }
  if (rotation.generation !== undefined) {
    errors.attempt(() => validateInteger(`${field}.rotation.generation`, rotation.generation!, 0));
  }
  for (const [key, ca] of Object.entries(cas)) {
    if (ca === undefined) continue;
    errors.attempt(() => {
      check(
        typeof ca === "object" && ca !== null && ca.certPem !== undefined,
        `${field}.${key}.certPem`,
        "is required",
        "the CA certificate (PEM)",
      );
      const deferred = (v: unknown) => pulumi.Output.isInstance(v) || v instanceof Promise;
      if (deferred(ca.certPem) || deferred(ca.keyPem)) return;
      check(
        typeof ca.certPem === "string",
        `${field}.${key}.certPem`,
        `${show(ca.certPem)} is not a PEM string`,
      );
      check(
        ca.keyPem === undefined || typeof ca.keyPem === "string",
        `${field}.${key}.keyPem`,
        `${typeof ca.keyPem} is not a PEM string`,
      );
      checkCaPem(
        `${field}.${key}`,
        { certPem: ca.certPem as string, keyPem: ca.keyPem as string | undefined },
        { now, mustCoverHours: leafHours ?? DEFAULT_LEAF_VALIDITY_HOURS, role: key },
      );
    });
  }
  errors.throwIfAny();
}
