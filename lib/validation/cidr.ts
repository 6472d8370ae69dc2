import { ConfigError, show } from "./errors";
import { formatIp, IP_BITS, IpAddress, parseIp } from "./ip";

/** A network in CIDR notation, with its host bits known to be zero. */
export interface Cidr {
  /** The network address (host bits zero). */
  readonly network: IpAddress;
  /** Prefix length, 0–32 (IPv4) or 0–128 (IPv6). */
  readonly prefix: number;
}

const PREFIX = /^(0|[1-9][0-9]{0,2})$/;

/** Mask with the low `bits − prefix` bits set: the host part. */
function hostMask(family: 4 | 6, prefix: number): bigint {
  return (1n << BigInt(IP_BITS[family] - prefix)) - 1n;
}

/** Canonical text of a CIDR, e.g. `10.96.0.0/12`, `fd00::/108`. */
export function formatCidr(cidr: Cidr): string {
  return `${formatIp(cidr.network)}/${cidr.prefix}`;
}

/**
 * Validates `address/prefix` (IPv4 or IPv6). Host bits must be zero: `10.96.0.1/12` is almost always a
 * typo, and the message names the network the user probably meant.
 */
export function validateCidr(field: string, value: string): Cidr {
  const form = "address/prefix with the host bits zero, e.g. 10.96.0.0/12 or fd00:10:96::/112";
  const [addressText, prefixText, extra] = typeof value === "string" ? value.split("/") : [];
  const address = addressText === undefined ? undefined : parseIp(addressText);
  if (!address || prefixText === undefined || extra !== undefined || !PREFIX.test(prefixText)) {
    throw new ConfigError(field, `${show(value)} is not a CIDR`, form);
  }
  const prefix = Number(prefixText);
  const bits = IP_BITS[address.family];
  if (prefix > bits) {
    throw new ConfigError(
      field,
      `prefix /${prefix} of ${show(value)} is longer than ${bits} bits`,
      `0–${bits}`,
    );
  }
  const mask = hostMask(address.family, prefix);
  if ((address.value & mask) !== 0n) {
    const network = formatCidr({ network: { family: address.family, value: address.value & ~mask }, prefix });
    throw new ConfigError(field, `${show(value)} has host bits set (did you mean ${show(network)}?)`, form);
  }
  return { network: address, prefix };
}

/** Number of addresses in the network. */
export function cidrSize(cidr: Cidr): bigint {
  return hostMask(cidr.network.family, cidr.prefix) + 1n;
}

/**
 * The `index`-th address of the network (0 = the network address). Kubernetes gives the `kubernetes`
 * Service the address at index 1 of the service CIDR.
 */
export function cidrAddress(field: string, cidr: Cidr, index: number): string {
  if (!Number.isInteger(index) || index < 0 || BigInt(index) >= cidrSize(cidr)) {
    throw new ConfigError(field, `${formatCidr(cidr)} has no address at offset ${index}`, "a larger network");
  }
  return formatIp({ family: cidr.network.family, value: cidr.network.value + BigInt(index) });
}

/** True when `ip` lies inside the network. */
export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  return (
    ip.family === cidr.network.family && (ip.value & ~hostMask(ip.family, cidr.prefix)) === cidr.network.value
  );
}
