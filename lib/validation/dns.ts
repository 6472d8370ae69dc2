import { ConfigError, show } from "./errors";

// Kubernetes' definitions (k8s.io/apimachinery validation): lower-case alphanumerics and '-', alnum ends.
const LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL = new RegExp(`^${LABEL}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${LABEL}(\\.${LABEL})*$`);

/** Longest DNS-1123 label (RFC 1123). */
const DNS1123_LABEL_MAX = 63;
/** Longest DNS-1123 subdomain (RFC 1123). */
const DNS1123_SUBDOMAIN_MAX = 253;

const LABEL_FORM = `lower-case alphanumerics and '-', starting and ending alphanumeric, at most ${DNS1123_LABEL_MAX} characters`;
const SUBDOMAIN_FORM = `dot-separated DNS labels (${LABEL_FORM}), at most ${DNS1123_SUBDOMAIN_MAX} characters`;
const WILDCARD_FORM = `"*." followed by a DNS subdomain, e.g. "*.karmada-system.svc"`;

/** True for a DNS-1123 label such as `karmada-system` (Namespace and Service names). */
export function isDns1123Label(value: string): boolean {
  return value.length <= DNS1123_LABEL_MAX && DNS1123_LABEL.test(value);
}

/** True for a DNS-1123 subdomain such as `etcd-client.karmada-system.svc` (most object names, hostnames). */
export function isDns1123Subdomain(value: string): boolean {
  return (
    value.length <= DNS1123_SUBDOMAIN_MAX &&
    DNS1123_SUBDOMAIN.test(value) &&
    value.split(".").every((label) => label.length <= DNS1123_LABEL_MAX)
  );
}

/** True for a wildcard DNS name `*.<subdomain>` as used in certificate SANs (`*.karmada-system.svc`). */
export function isWildcardDnsName(value: string): boolean {
  return (
    value.startsWith("*.") && value.length <= DNS1123_SUBDOMAIN_MAX && isDns1123Subdomain(value.slice(2))
  );
}

/** Validates a DNS-1123 label; returns it. */
export function validateDns1123Label(field: string, value: string): string {
  if (typeof value !== "string" || !isDns1123Label(value)) {
    throw new ConfigError(field, `${show(value)} is not a DNS-1123 label`, LABEL_FORM);
  }
  return value;
}

/** Validates a DNS-1123 subdomain; returns it. */
export function validateDns1123Subdomain(field: string, value: string): string {
  if (typeof value !== "string" || !isDns1123Subdomain(value)) {
    throw new ConfigError(field, `${show(value)} is not a DNS-1123 subdomain`, SUBDOMAIN_FORM);
  }
  return value;
}

/** Validates a wildcard DNS name (`*.ns.svc`); returns it. */
export function validateWildcardDnsName(field: string, value: string): string {
  if (typeof value !== "string" || !isWildcardDnsName(value)) {
    throw new ConfigError(field, `${show(value)} is not a wildcard DNS name`, WILDCARD_FORM);
  }
  return value;
}

/**
 * True when the last label is all digits: no real host name ends like that (top-level domains are never
 * numeric, RFC 3696 §2), so such a "name" is a mistyped IP address such as `10.0.0.300` or `10.0.0.01`.
 */
export function looksLikeIpTypo(value: string): boolean {
  return /(^|\.)[0-9]+$/.test(value);
}

/**
 * Validates a DNS name for a certificate: a DNS-1123 subdomain or a wildcard name, and not a mistyped IP
 * address (see {@link looksLikeIpTypo}); returns it.
 */
export function validateDnsSan(field: string, value: string): string {
  if (typeof value === "string" && looksLikeIpTypo(value)) {
    throw new ConfigError(
      field,
      `${show(value)} is neither an IP address nor a DNS name`,
      "an IPv4 address, an IPv6 address or a DNS name",
    );
  }
  if (typeof value !== "string" || !(isDns1123Subdomain(value) || isWildcardDnsName(value))) {
    throw new ConfigError(
      field,
      `${show(value)} is not a DNS name`,
      `${SUBDOMAIN_FORM}; or ${WILDCARD_FORM}`,
    );
  }
  return value;
}
