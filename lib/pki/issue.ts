import * as pulumi from "@pulumi/pulumi";
import * as tls from "@pulumi/tls";
import { show } from "../validation/errors";
import { CA_IDS, CA_SPECS, CaId, CertSpec, DEFAULT_CA_VALIDITY_HOURS } from "./certificates";
import { IssuePkiArgs, validateIssuePkiArgs } from "./issue-args";
import { PkiFile } from "./layout";
import { providerSlotInUse, ProviderSlot } from "./rotation";

// The argument types live with their validation; re-exported so callers import issuing from one place.
export type { CaSource, IssuePkiArgs } from "./issue-args";

/** RSA modulus of every generated key (the size upstream Karmada installers use). */
export const RSA_BITS = 3072;

/** One issued leaf. */
interface IssuedLeaf {
  /** The certificate (PEM). */
  readonly certPem: pulumi.Output<string>;
  /** Its private key (PEM), a secret Output. */
  readonly keyPem: pulumi.Output<string>;
  /** RFC 3339 expiry of the current certificate (`validityEndTime`). */
  readonly notAfter: pulumi.Output<string>;
  /** The `replacementTrigger` given to the leaf's key and certificate (see rotation.ts). */
  readonly rotationTrigger: string;
}

/** What {@link issuePki} produced. */
export interface IssuedPki {
  /** Contents of a PKI file; every `*.key` is a secret Output. Throws if the file was not issued. */
  file(file: PkiFile): pulumi.Output<string>;
  /** Every file {@link file} can return. */
  readonly files: readonly PkiFile[];
  /** CA certificates by id (generated or supplied) — what trust bundles are built from. */
  readonly caCertPem: Readonly<Partial<Record<CaId, pulumi.Output<string>>>>;
  /** Leaves by spec id. */
  readonly leaves: Readonly<Record<string, IssuedLeaf>>;
  /** Expiry of each leaf by spec id (also in `leaves`). */
  readonly notAfter: Readonly<Record<string, pulumi.Output<string>>>;
  /**
   * The provider slot to use now (rotation.ts `providerSlotInUse`), when the table has slots: the one
   * not renewed in the current window.
   */
  readonly providerSlot?: ProviderSlot;
}

interface IssuedCa {
  readonly certPem: pulumi.Output<string>;
  readonly keyPem?: pulumi.Output<string>;
}

function generateCa(args: IssuePkiArgs, id: CaId, opts: pulumi.CustomResourceOptions): IssuedCa {
  const spec = CA_SPECS[id];
  const key = new tls.PrivateKey(`${args.name}-${id}-key`, { algorithm: "RSA", rsaBits: RSA_BITS }, opts);
  const cert = new tls.SelfSignedCert(
    `${args.name}-${id}`,
    {
      privateKeyPem: key.privateKeyPem,
      subject: { commonName: spec.commonName },
      isCaCertificate: true,
      setSubjectKeyId: true,
      allowedUses: [...spec.allowedUses],
      validityPeriodHours: args.caValidityHours ?? DEFAULT_CA_VALIDITY_HOURS,
    },
    opts,
  );
  return { certPem: cert.certPem, keyPem: pulumi.secret(key.privateKeyPem) };
}

function issueLeaf(
  args: IssuePkiArgs,
  spec: CertSpec,
  ca: IssuedCa,
  trigger: string,
  opts: pulumi.CustomResourceOptions,
): IssuedLeaf {
  // The key rotates with the certificate: a renewed certificate for an old key renews nothing.
  const rotating = { ...opts, replacementTrigger: trigger };
  const key = new tls.PrivateKey(
    `${args.name}-${spec.id}-key`,
    { algorithm: "RSA", rsaBits: RSA_BITS },
    rotating,
  );
  const csr = new tls.CertRequest(
    `${args.name}-${spec.id}-csr`,
    {
      privateKeyPem: key.privateKeyPem,
      subject: { commonName: spec.commonName, organization: spec.organizations[0] },
      dnsNames: [...spec.dnsNames],
      ipAddresses: [...spec.ipAddresses],
    },
    opts,
  );
  const cert = new tls.LocallySignedCert(
    `${args.name}-${spec.id}-cert`,
    {
      certRequestPem: csr.certRequestPem,
      caCertPem: ca.certPem,
      caPrivateKeyPem: ca.keyPem!,
      allowedUses: [...spec.allowedUses],
      validityPeriodHours: spec.validityHours,
    },
    rotating,
  );
  return {
    certPem: cert.certPem,
    keyPem: pulumi.secret(key.privateKeyPem),
    notAfter: cert.validityEndTime,
    rotationTrigger: trigger,
  };
}

/**
 * Creates the PKI described by `certificates`: the CAs their signers need (generated, or taken from
 * `cas`), every leaf with a rotation trigger, and optionally the service-account key. Private keys only
 * leave as secret Outputs.
 */
export function issuePki(args: IssuePkiArgs): IssuedPki {
  // one reading of the clock for every trigger and the slot choice: they must agree on the window
  const nowMs = (args.rotation?.now ?? Date.now)();
  const triggers = validateIssuePkiArgs({ ...args, rotation: { ...args.rotation, now: () => nowMs } });
  const slotted = args.certificates.find((spec) => spec.rotationSlot);
  const opts: pulumi.CustomResourceOptions = { parent: args.parent };
  const files = new Map<PkiFile, pulumi.Output<string>>();
  const cas: Partial<Record<CaId, IssuedCa>> = {};
  const caCertPem: Partial<Record<CaId, pulumi.Output<string>>> = {};
  const needed = new Set<CaId>([
    ...args.certificates.map((c) => c.signer),
    ...(Object.keys(args.cas ?? {}) as CaId[]),
  ]);
  for (const id of CA_IDS.filter((ca) => needed.has(ca))) {
    const supplied = args.cas?.[id];
    const ca: IssuedCa = supplied
      ? {
          certPem: pulumi.output(supplied.certPem),
          keyPem: supplied.keyPem === undefined ? undefined : pulumi.secret(supplied.keyPem),
        }
      : generateCa(args, id, opts);
    cas[id] = ca;
    caCertPem[id] = ca.certPem;
    files.set(CA_SPECS[id].files.cert, ca.certPem);
    if (ca.keyPem) files.set(CA_SPECS[id].files.key, ca.keyPem);
  }
  const leaves: Record<string, IssuedLeaf> = {};
  for (const spec of args.certificates) {
    const leaf = issueLeaf(args, spec, cas[spec.signer]!, triggers.get(spec.id)!, opts);
    leaves[spec.id] = leaf;
    files.set(spec.files.cert, leaf.certPem);
    files.set(spec.files.key, leaf.keyPem);
  }
  if (args.serviceAccountKey) {
    const sa = new tls.PrivateKey(`${args.name}-sa-key`, { algorithm: "RSA", rsaBits: RSA_BITS }, opts);
    files.set("sa.key", pulumi.secret(sa.privateKeyPem));
    files.set("sa.pub", sa.publicKeyPem);
  }
  return {
    file(file: PkiFile): pulumi.Output<string> {
      const content = files.get(file);
      if (!content)
        throw new Error(`PKI file ${show(file)} was not issued; issued: ${[...files.keys()].join(", ")}`);
      return content;
    },
    files: [...files.keys()],
    caCertPem,
    leaves,
    notAfter: Object.fromEntries(Object.entries(leaves).map(([id, leaf]) => [id, leaf.notAfter])),
    providerSlot: slotted ? providerSlotInUse(slotted.validityHours, nowMs) : undefined,
  };
}
