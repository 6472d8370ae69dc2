import * as fc from "fast-check";
import { isIPv4, isIPv6 } from "node:net";
import { formatIp, isIp, parseIp, parseIPv4, parseIPv6, validateIpAddress } from "../../../lib/validation/ip";
import { configError } from "./config-error";

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join("."));

/** WHATWG URL serialises IPv6 hosts in RFC 5952 form: an independent implementation to compare with. */
const whatwgIPv6 = (text: string): string => new URL(`http://[${text}]/`).hostname.slice(1, -1);

describe("IPv4", () => {
  it("accepts every dotted quad of octets and round-trips it", () => {
    fc.assert(
      fc.property(ipv4, (text) => {
        const ip = parseIPv4(text);
        expect(ip?.family).toBe(4);
        expect(formatIp(ip!)).toBe(text);
        expect(validateIpAddress("f", text, 4)).toBe(text);
      }),
    );
  });

  it("rejects any address with one octet replaced by an invalid one", () => {
    const badOctet = fc.oneof(
      fc.integer({ min: 256, max: 99999 }).map(String),
      fc.integer({ min: 0, max: 99 }).map((n) => `0${n}`), // leading zero: octal to some parsers
      fc.constantFrom("", "-1", "a", "1a", " 1", "0x1", "+1", "1.5"),
    );
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), fc.nat(3), badOctet, (octets, position, bad) => {
        const parts = octets.map(String);
        parts[position] = bad;
        const text = parts.join(".");
        expect(parseIPv4(text)).toBeUndefined();
        expect(isIPv4(text)).toBe(false); // Node agrees the mutation is invalid
        expect(configError(() => validateIpAddress("etcd.members[0]", text)).field).toBe("etcd.members[0]");
      }),
    );
  });

  it("rejects the wrong number of octets", () => {
    for (const text of ["1.2.3", "1.2.3.4.5", "1..2.3", "", "1.2.3.4."])
      expect(parseIPv4(text)).toBeUndefined();
  });
});

describe("IPv6", () => {
  it("agrees with Node on validity and with WHATWG URL on the canonical form", () => {
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        expect(isIPv6(text)).toBe(true);
        const ip = parseIPv6(text);
        expect(ip?.family).toBe(6);
        expect(formatIp(ip!)).toBe(whatwgIPv6(text));
        expect(parseIPv6(formatIp(ip!))?.value).toBe(ip!.value);
      }),
    );
  });

  it("canonicalises: lower case, longest zero run compressed, first on a tie, no single-group ::", () => {
    expect(validateIpAddress("f", "0:0:0:0:0:0:0:1")).toBe("::1");
    expect(validateIpAddress("f", "FD00:0:0:0:0:0:0:A")).toBe("fd00::a");
    expect(validateIpAddress("f", "1:0:0:2:0:0:0:3")).toBe("1:0:0:2::3");
    expect(validateIpAddress("f", "1:0:0:2:0:0:3:4")).toBe("1::2:0:0:3:4");
    expect(validateIpAddress("f", "1:0:2:3:4:5:6:7")).toBe("1:0:2:3:4:5:6:7");
    expect(validateIpAddress("f", "::ffff:10.0.0.1")).toBe("::ffff:a00:1");
    expect(validateIpAddress("f", "::")).toBe("::");
  });

  it("rejects malformed text and bad IPv4 tails", () => {
    for (const text of [
      ":::",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      "g::1",
      "::ffff:10.0.0.256",
      "1:2:3:4:5:6:7::8:9",
    ]) {
      expect(parseIPv6(text)).toBeUndefined();
      expect(isIPv6(text)).toBe(false);
    }
  });

  it("rejects zone ids, which Node accepts but certificates and CIDRs cannot carry", () => {
    expect(isIPv6("fe80::1%eth0")).toBe(true);
    expect(parseIPv6("fe80::1%eth0")).toBeUndefined();
  });
});

describe("validateIpAddress", () => {
  it("names the field and the allowed forms", () => {
    const error = configError(() => validateIpAddress("apiServer.extraSans[1]", "10.0.0.300"));
    expect(error.field).toBe("apiServer.extraSans[1]");
    expect(error.message).toBe(
      'invalid apiServer.extraSans[1]: "10.0.0.300" is not an IP address (allowed: IPv4 dotted decimal or IPv6)',
    );
  });

  it("enforces the family when one is asked for", () => {
    expect(configError(() => validateIpAddress("f", "::1", 4)).allowed).toBe("IPv4 dotted decimal");
    expect(configError(() => validateIpAddress("f", "10.0.0.1", 6)).allowed).toBe("IPv6");
  });

  it("isIp and parseIp accept both families and nothing else", () => {
    expect(isIp("10.0.0.1")).toBe(true);
    expect(isIp("fd00::1")).toBe(true);
    expect(isIp("karmada.example.com")).toBe(false);
    expect(parseIp("::1")?.value).toBe(1n);
  });
});
