/**
 * Rules about leaf certificates (the ones `tls.LocallySignedCert` issues; CAs are self-signed and live
 * longer by design): a bounded life, and enough of it left. The library renews every leaf inside its
 * renew window on each `up` (lib/pki/rotation.ts), so a leaf close to its end means `up` has not run in
 * that window — the state in which certificates expire and take the control plane down.
 */
import { PolicyParameters } from "./config";
import { PolicySubject, PolicyViolation, prop } from "./subject";

const LEAF = "tls:index/locallySignedCert:LocallySignedCert";
const HOUR_MS = 3_600_000;

/** Leaves issued for longer than `maxLeafValidityHours`. */
export function leafValidity(
  resources: readonly PolicySubject[],
  params: PolicyParameters,
): PolicyViolation[] {
  return resources
    .filter((r) => r.type === LEAF)
    .flatMap((r) => {
      const hours = prop(r.props, "validityPeriodHours");
      if (typeof hours !== "number" || hours <= params.maxLeafValidityHours) return [];
      return [
        {
          urn: r.urn,
          message:
            `certificate ${r.name} is issued for ${hours} hours (more than ${params.maxLeafValidityHours}). ` +
            `Fix: pki.leafValidityHours: ${params.maxLeafValidityHours} or less (the component's pki setting).`,
        },
      ];
    });
}

/** Leaves with less than `minLeafRemainingHours` left at `now`: renewal has not run. */
export function leafRemaining(
  resources: readonly PolicySubject[],
  params: PolicyParameters,
  now: number,
): PolicyViolation[] {
  return resources
    .filter((r) => r.type === LEAF)
    .flatMap((r) => {
      const end = prop(r.props, "validityEndTime");
      if (typeof end !== "string" || end === "") return []; // not issued yet
      const left = (Date.parse(end) - now) / HOUR_MS;
      if (!(left < params.minLeafRemainingHours)) return [];
      const state = left <= 0 ? `expired at ${end}` : `expires at ${end}, in ${Math.floor(left)} hours`;
      return [
        {
          urn: r.urn,
          message:
            `certificate ${r.name} ${state} (less than ${params.minLeafRemainingHours} hours left). Fix: run ` +
            `\`pulumi up\` — it renews leaves inside their renew window (pki.rotation.renewBeforeHours) — ` +
            `or bump pki.rotation.generation to renew every leaf now.`,
        },
      ];
    });
}
