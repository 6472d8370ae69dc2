import * as fc from "fast-check";
import { cidrAddress, cidrContains, cidrSize, formatCidr, validateCidr } from "../../../lib/validation/cidr";
import { formatIp, parseIp } from "../../../lib/validation/ip";
import { configError } from "./config-error";

const ipv4Value = fc.bigInt({ min: 0n, max: 2n ** 32n - 1n });
const ipv6Value = fc.bigInt({ min: 0n, max: 2n ** 128n - 1n });

describe("validateCidr", () => {
  it("accepts every network with its host bits cleared and round-trips the text", () => {
    const network = fc.oneof(
      fc.tuple(fc.constant<4>(4), ipv4Value, fc.integer({ min: 0, max: 32 })),
      fc.tuple(fc.constant<6>(6), ipv6Value, fc.integer({ min: 0, max: 128 })),
    );
    fc.assert(
      fc.property(network, ([family, value, prefix]) => {
        const bits = family === 4 ? 32 : 128;
        const hostMask = (1n << BigInt(bits - prefix)) - 1n;
        const text = `${formatIp({ family, value: value & ~hostMask })}/${prefix}`;
        const cidr = validateCidr("apiServer.serviceSubnet", text);
        expect(formatCidr(cidr)).toBe(text);
        expect(cidrSize(cidr)).toBe(hostMask + 1n);
        // Any address with host bits set is rejected, naming the network it belongs to.
        if (prefix < bits) {
          const withHostBits = `${formatIp({ family, value: (value & ~hostMask) | 1n })}/${prefix}`;
          const error = configError(() => validateCidr("apiServer.serviceSubnet", withHostBits));
          expect(error.problem).toContain("host bits set");
          expect(error.problem).toContain(JSON.stringify(text));
        }
      }),
    );
  });

  it("explains a typical typo", () => {
    const error = configError(() => validateCidr("apiServer.serviceSubnet", "10.96.0.1/12"));
    expect(error.message).toBe(
      'invalid apiServer.serviceSubnet: "10.96.0.1/12" has host bits set (did you mean "10.96.0.0/12"?) ' +
        "(allowed: address/prefix with the host bits zero, e.g. 10.96.0.0/12 or fd00:10:96::/112)",
    );
  });

  it.each([
    ["10.0.0.0"],
    ["10.0.0.0/"],
    ["10.0.0.0/012"],
    ["10.0.0.0/8/8"],
    ["10.0.0/8"],
    ["/8"],
    ["fd00::/-1"],
  ])("rejects %s as not a CIDR", (text) => {
    expect(configError(() => validateCidr("f", text)).problem).toBe(`${JSON.stringify(text)} is not a CIDR`);
  });

  it("rejects prefixes longer than the family allows", () => {
    expect(configError(() => validateCidr("f", "10.0.0.0/33")).allowed).toBe("0–32");
    expect(configError(() => validateCidr("f", "fd00::/129")).allowed).toBe("0–128");
  });
});

describe("cidrAddress / cidrContains", () => {
  it("gives the kubernetes Service IP (offset 1) of common service subnets", () => {
    expect(cidrAddress("f", validateCidr("f", "10.96.0.0/12"), 1)).toBe("10.96.0.1");
    expect(cidrAddress("f", validateCidr("f", "fd00:10:96::/112"), 1)).toBe("fd00:10:96::1");
    expect(cidrAddress("f", validateCidr("f", "10.0.0.0/31"), 1)).toBe("10.0.0.1");
  });

  it("refuses offsets outside the network", () => {
    const error = configError(() =>
      cidrAddress("apiServer.serviceSubnet", validateCidr("f", "10.0.0.1/32"), 1),
    );
    expect(error.field).toBe("apiServer.serviceSubnet");
    expect(error.problem).toBe("10.0.0.1/32 has no address at offset 1");
  });

  it("every offset inside the network is contained in it", () => {
    fc.assert(
      fc.property(ipv4Value, fc.integer({ min: 8, max: 32 }), fc.nat(), (value, prefix, n) => {
        const mask = (1n << BigInt(32 - prefix)) - 1n;
        const cidr = validateCidr("f", `${formatIp({ family: 4, value: value & ~mask })}/${prefix}`);
        const offset = n % Number(cidrSize(cidr));
        expect(cidrContains(cidr, parseIp(cidrAddress("f", cidr, offset))!)).toBe(true);
      }),
    );
    expect(cidrContains(validateCidr("f", "10.96.0.0/12"), parseIp("10.112.0.0")!)).toBe(false);
    expect(cidrContains(validateCidr("f", "10.96.0.0/12"), parseIp("::1")!)).toBe(false);
  });
});
