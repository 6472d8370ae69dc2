import * as pulumi from "@pulumi/pulumi";
import { ConfigError, ErrorCollector, check, show } from "../validation/errors";
import { checkedWhenKnown } from "../validation/deferred";
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
 * sign, whose key matches, and that stays valid as long as a leaf issued now. A part given as an Output
 * (a secret from config) cannot be read before registration: the certificate is checked now when it is
 * plain, the rest by {@link checkedCaSource} inside the deployment.
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
      // a part given as an Output (a secret) is checked once known, by checkedCaSource
      if (isDeferred(ca.certPem)) return;
      check(
        typeof ca.certPem === "string",
        `${field}.${key}.certPem`,
        `${show(ca.certPem)} is not a PEM string`,
      );
      const keyNow = isDeferred(ca.keyPem) ? undefined : ca.keyPem;
      check(
        keyNow === undefined || typeof keyNow === "string",
        `${field}.${key}.keyPem`,
        `${typeof keyNow} is not a PEM string`,
      );
      checkCaPem(
        `${field}.${key}`,
        { certPem: ca.certPem as string, keyPem: keyNow as string | undefined },
        caRequirement(pki, key, now),
      );
    });
  }
  errors.throwIfAny();
}

const isDeferred = (v: unknown) => pulumi.Output.isInstance(v) || v instanceof Promise;

/** What a brought CA must satisfy: valid now, and as long as a leaf issued now (`leafValidityHours`). */
function caRequirement(pki: PkiConfigToCheck, role: string, now: Date) {
  return { now, mustCoverHours: pki.leafValidityHours ?? DEFAULT_LEAF_VALIDITY_HOURS, role };
}

/**
 * A brought CA (`field`, e.g. `pki.karmadaCa`) to sign with: its parts as given when they were plain
 * (validatePkiConfig checked them), else checked once known, inside the deployment — the certificate
 * on its own (it keeps its own secrecy), the key together with the certificate it must belong to. Every
 * leaf is signed from these checked values, so a wrong secret CA fails the `up` naming the field, with
 * no certificate issued from it; messages never show a key.
 */
export function checkedCaSource(
  field: string,
  ca: CaSource,
  pki: PkiConfigToCheck,
  now: Date = new Date((pki.rotation?.now ?? Date.now)()),
): CaSource {
  if (!isDeferred(ca.certPem) && !isDeferred(ca.keyPem)) return ca;
  const requirement = caRequirement(pki, field.split(".").pop()!, now);
  const certPem = checkedWhenKnown(ca.certPem, (cert) => checkCaPem(field, { certPem: cert }, requirement));
  const keyPem =
    ca.keyPem === undefined
      ? undefined
      : pulumi.all([ca.certPem, ca.keyPem]).apply(([cert, key]) => {
          checkCaPem(field, { certPem: cert, keyPem: key }, requirement);
          return key;
        });
  return { certPem, keyPem };
}
