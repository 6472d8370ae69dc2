import { ConfigError, show } from "./errors";

/** An IP address as a number, so that addresses can be compared, ordered and offset exactly. */
export interface IpAddress {
  /** 4 for IPv4, 6 for IPv6. */
  readonly family: 4 | 6;
  /** The address as an unsigned integer (32 or 128 bits). */
  readonly value: bigint;
}

/** Number of bits in an address of each family. */
export const IP_BITS: Readonly<Record<4 | 6, number>> = { 4: 32, 6: 128 };

// Dotted decimal without leading zeros: "010" is octal to some parsers and decimal to others.
const IPV4_OCTET = /^(0|[1-9][0-9]{0,2})$/;
const IPV6_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Parses dotted-decimal IPv4 (`10.0.0.1`); undefined when the text is not exactly that. */
export function parseIPv4(text: string): IpAddress | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!IPV4_OCTET.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return { family: 4, value };
}

/**
 * Parses IPv6 text (RFC 4291 §2.2: full, `::`-compressed, or with a dotted IPv4 tail); undefined when
 * invalid. Zone identifiers (`fe80::1%eth0`) are rejected: they have no place in certificates or CIDRs.
 */
export function parseIPv6(text: string): IpAddress | undefined {
  if (text.length === 0 || text.includes("%")) return undefined;
  let groups: string[];
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const split = (half: string): string[] => (half === "" ? [] : half.split(":"));
  const head = split(halves[0]);
  const tail = halves.length === 2 ? split(halves[1]) : [];
  // A dotted IPv4 tail stands for the last two groups.
  const last = halves.length === 2 ? tail : head;
  if (last.length > 0 && last[last.length - 1].includes(".")) {
    const v4 = parseIPv4(last[last.length - 1]);
    if (!v4) return undefined;
    last.splice(
      last.length - 1,
      1,
      ((v4.value >> 16n) & 0xffffn).toString(16),
      (v4.value & 0xffffn).toString(16),
    );
  }
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  } else {
    groups = head;
  }
  if (groups.length !== 8 || !groups.every((g) => IPV6_GROUP.test(g))) return undefined;
  const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  return { family: 6, value };
}

/** Parses an IPv4 or IPv6 address; undefined when the text is neither. */
export function parseIp(text: string): IpAddress | undefined {
  return text.includes(":") ? parseIPv6(text) : parseIPv4(text);
}

/** Canonical text of an address: dotted decimal, or RFC 5952 IPv6 (lower case, longest zero run as `::`). */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => ((ip.value >> shift) & 0xffn).toString()).join(".");
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952 §4.2: compress the longest run of two or more zero groups, the first one on a tie.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

/** True when `text` is an IPv4 or IPv6 address. */
export function isIp(text: string): boolean {
  return parseIp(text) !== undefined;
}

/**
 * Validates an IP address and returns its canonical text (so `0:0::1` and `::1` compare equal).
 * @param family restrict to one family; @default both
 */
export function validateIpAddress(field: string, value: string, family?: 4 | 6): string {
  const ip = typeof value === "string" ? parseIp(value) : undefined;
  const allowed =
    family === 4 ? "IPv4 dotted decimal" : family === 6 ? "IPv6" : "IPv4 dotted decimal or IPv6";
  if (!ip || (family && ip.family !== family)) {
    throw new ConfigError(field, `${show(value)} is not an IP address`, allowed);
  }
  return formatIp(ip);
}
