import { isDns1123Subdomain, looksLikeIpTypo } from "./dns";
import { ConfigError, show } from "./errors";
import { formatIp, parseIPv4, parseIPv6 } from "./ip";
import { validatePort } from "./numbers";

/** A network endpoint; `host` is a DNS name or the canonical text of an IP address (no brackets). */
export interface HostPort {
  /** DNS name or canonical IP text. */
  readonly host: string;
  /** TCP port, 1–65535. */
  readonly port: number;
}

const HOST_FORM = "a DNS-1123 subdomain, an IPv4 address or an IPv6 address";

/** Validates a host (DNS name or IP, IPv6 without brackets); returns it, IPs in canonical form. */
export function validateHost(field: string, value: string): string {
  const ip =
    typeof value === "string" ? (value.includes(":") ? parseIPv6(value) : parseIPv4(value)) : undefined;
  if (ip) return formatIp(ip);
  // A dotted-quad that is not an IPv4 address (e.g. 10.0.0.256) is a typo, not a DNS name.
  if (typeof value === "string" && isDns1123Subdomain(value) && !looksLikeIpTypo(value)) return value;
  throw new ConfigError(field, `${show(value)} is not a host name or IP address`, HOST_FORM);
}

/** Joins host and port, bracketing IPv6 hosts (`[fd00::1]:6443`). */
export function formatHostPort(endpoint: HostPort): string {
  return endpoint.host.includes(":")
    ? `[${endpoint.host}]:${endpoint.port}`
    : `${endpoint.host}:${endpoint.port}`;
}

/** Validates `host:port` (`[ipv6]:port` for IPv6) and splits it. */
export function validateHostPort(field: string, value: string): HostPort {
  const form = "host:port, e.g. karmada.example.com:5443, 10.0.0.1:5443 or [fd00::1]:5443";
  const match = typeof value === "string" ? /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]+)$/.exec(value) : null;
  if (!match) throw new ConfigError(field, `${show(value)} is not host:port`, form);
  const [, bracketed, plain, port] = match;
  const host = bracketed !== undefined ? validateIpv6Host(field, bracketed) : validateHost(field, plain);
  return { host, port: validatePort(field, Number(port)) };
}

function validateIpv6Host(field: string, value: string): string {
  const ip = parseIPv6(value);
  if (!ip) throw new ConfigError(field, `${show(value)} in brackets is not an IPv6 address`, "[IPv6]:port");
  return formatIp(ip);
}
