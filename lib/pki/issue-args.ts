import * as pulumi from "@pulumi/pulumi";
import { isDns1123Label } from "../validation/dns";
import { ConfigError, show } from "../validation/errors";
import { validateUnique } from "../validation/duplicates";
import { validateInteger } from "../validation/numbers";
import { CA_IDS, CA_SPECS, CaId, CertSpec, DEFAULT_CA_VALIDITY_HOURS } from "./certificates";
import { RotationSettings, rotationTrigger, slotRotationTrigger } from "./rotation";
import { validateAllowedUses } from "./usages";

/** A CA brought by the user instead of generated. */
export interface CaSource {
  /** PEM of the CA certificate. */
  readonly certPem: pulumi.Input<string>;
  /**
   * PEM of the CA private key; wrapped in a Pulumi secret. Needed only when leaves are issued from it.
   * @default none (the CA can only be trusted, not used to sign)
   */
  readonly keyPem?: pulumi.Input<string>;
}

/**
 * Arguments of {@link issuePki}. Child resource names are part of the public contract (renaming one
 * replaces the resource, i.e. reissues the CA and every leaf under it):
 * - CA `id` generated: `tls.PrivateKey` `${name}-${id}-key`, `tls.SelfSignedCert` `${name}-${id}`
 *   (`${name}-karmada-ca`, `${name}-front-proxy-ca`, `${name}-etcd-ca`);
 * - leaf `id`: `tls.PrivateKey` `${name}-${id}-key`, `tls.CertRequest` `${name}-${id}-csr`,
 *   `tls.LocallySignedCert` `${name}-${id}-cert`;
 * - service-account key: `tls.PrivateKey` `${name}-sa-key`.
 */
export interface IssuePkiArgs {
  /** Prefix of every child resource name: the owning component's name. */
  readonly name: string;
  /** Resource every child is parented to (the component). */
  readonly parent: pulumi.Resource;
  /** Leaves to issue; their signers are generated unless given in `cas`. */
  readonly certificates: readonly CertSpec[];
  /** User-supplied CAs by id. @default {} (every CA a leaf needs is generated) */
  readonly cas?: Readonly<Partial<Record<CaId, CaSource>>>;
  /** Validity of generated CAs, in hours. @default 87600 (10 years) */
  readonly caValidityHours?: number;
  /** Create the service-account signing key pair (`sa.key`, `sa.pub`); it is never rotated. @default false */
  readonly serviceAccountKey?: boolean;
  /** Leaf renewal. @default renew a third of the validity before expiry, generation 0 */
  readonly rotation?: RotationSettings;
}

/**
 * Checks everything `issuePki` would use — and computes each leaf's rotation trigger — so that it can run
 * before any resource is registered and a bad table creates nothing. Returns the triggers by leaf id.
 */
export function validateIssuePkiArgs(args: IssuePkiArgs): Map<string, string> {
  validateUnique(
    "certificates",
    args.certificates.map((c) => c.id),
  );
  args.certificates.forEach((spec, i) => {
    const field = `certificates[${i}]`;
    if (!isDns1123Label(spec.id) || (CA_IDS as readonly string[]).includes(spec.id) || spec.id === "sa") {
      throw new ConfigError(
        `${field}.id`,
        `${show(spec.id)} is not a usable leaf id`,
        'a DNS label other than a CA id or "sa"',
      );
    }
    validateAllowedUses(`${field}.allowedUses`, spec.allowedUses);
    validateInteger(`${field}.validityHours`, spec.validityHours, 2);
    if (spec.organizations.length > 1) {
      throw new ConfigError(
        `${field}.organizations`,
        `${show(spec.organizations)} has more than one entry`,
        "at most one (tls provider limit)",
      );
    }
    if (!(CA_IDS as readonly string[]).includes(spec.signer)) {
      throw new ConfigError(`${field}.signer`, `unknown CA ${show(spec.signer)}`, CA_IDS.join(", "));
    }
    const supplied = args.cas?.[spec.signer];
    if (supplied && supplied.keyPem === undefined) {
      throw new ConfigError(`cas.${spec.signer}.keyPem`, `is required to sign ${show(spec.id)}`);
    }
  });
  validateInteger("caValidityHours", args.caValidityHours ?? DEFAULT_CA_VALIDITY_HOURS, 1);
  // Two specs writing the same file would silently hand one component another's identity.
  const owners = new Map<string, string>(
    [...CA_IDS.flatMap((id) => [CA_SPECS[id].files.cert, CA_SPECS[id].files.key]), "sa.key", "sa.pub"].map(
      (f) => [f, "a CA or the service-account key"],
    ),
  );
  args.certificates.forEach((spec, i) => {
    for (const kind of ["cert", "key"] as const) {
      const owner = owners.get(spec.files[kind]);
      if (owner) {
        throw new ConfigError(
          `certificates[${i}].files.${kind}`,
          `${show(spec.files[kind])} is already written by ${owner}`,
          "a file of its own",
        );
      }
      owners.set(spec.files[kind], show(spec.id));
    }
  });
  const rotation = args.rotation ?? {};
  const nowMs = (rotation.now ?? Date.now)();
  return new Map(
    args.certificates.map((spec) => [
      spec.id,
      spec.rotationSlot
        ? slotRotationTrigger(spec.rotationSlot, spec.validityHours, nowMs)
        : rotationTrigger({
            validityHours: spec.validityHours,
            renewBeforeHours: rotation.renewBeforeHours,
            generation: rotation.generation,
            nowMs,
          }),
    ]),
  );
}
