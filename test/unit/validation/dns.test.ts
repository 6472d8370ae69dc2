import * as fc from "fast-check";
import {
  isDns1123Label,
  isDns1123Subdomain,
  isWildcardDnsName,
  validateDns1123Label,
  validateDns1123Subdomain,
  validateDnsSan,
  validateWildcardDnsName,
} from "../../../lib/validation/dns";
import { configError } from "./config-error";

const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
const subdomain = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join("."));

describe("DNS-1123 labels", () => {
  it("accepts every generated label", () => {
    fc.assert(fc.property(label, (l) => expect(validateDns1123Label("namespace", l)).toBe(l)));
  });

  it("rejects a label once a forbidden character is inserted", () => {
    const bad = fc.constantFrom("A", "_", ".", " ", "*", "é", "/");
    fc.assert(
      fc.property(label, fc.nat(), bad, (l, at, ch) => {
        const i = at % (l.length + 1);
        expect(isDns1123Label(l.slice(0, i) + ch + l.slice(i))).toBe(false);
      }),
    );
  });

  it("enforces the 63-character limit and alphanumeric ends", () => {
    expect(isDns1123Label("a".repeat(63))).toBe(true);
    expect(isDns1123Label("a".repeat(64))).toBe(false);
    for (const bad of ["-a", "a-", "", "Karmada"]) expect(isDns1123Label(bad)).toBe(false);
  });

  it("names field and form in the error", () => {
    const error = configError(() => validateDns1123Label("namespace", "Karmada_System"));
    expect(error.field).toBe("namespace");
    expect(error.problem).toBe('"Karmada_System" is not a DNS-1123 label');
    expect(error.allowed).toContain("lower-case alphanumerics and '-'");
  });
});

describe("DNS-1123 subdomains", () => {
  it("accepts dot-joined labels within 253 characters", () => {
    fc.assert(
      fc.property(subdomain, (s) => {
        expect(isDns1123Subdomain(s)).toBe(s.length <= 253);
      }),
    );
  });

  it("rejects empty labels, long labels and over-long names", () => {
    for (const bad of ["a..b", ".a", "a.", `${"a".repeat(64)}.b`, `${"a".repeat(63)}.`.repeat(4) + "a"]) {
      expect(isDns1123Subdomain(bad)).toBe(false);
    }
    expect(configError(() => validateDns1123Subdomain("clusterDomain", "cluster..local")).field).toBe(
      "clusterDomain",
    );
  });
});

describe("wildcard DNS names", () => {
  it("accepts *.<subdomain> and only that", () => {
    fc.assert(
      fc.property(
        subdomain.filter((s) => s.length <= 251),
        (s) => expect(isWildcardDnsName(`*.${s}`)).toBe(true),
      ),
    );
    for (const bad of ["*", "*.", "**.a", "a.*.b", "*a.b", "*.*.b", "*.A"])
      expect(isWildcardDnsName(bad)).toBe(false);
    expect(validateWildcardDnsName("f", "*.karmada-system.svc")).toBe("*.karmada-system.svc");
    expect(configError(() => validateWildcardDnsName("f", "a.*.svc")).allowed).toContain(
      '"*." followed by a DNS subdomain',
    );
  });

  it("validateDnsSan accepts names and wildcards, rejects the rest with both forms listed", () => {
    expect(validateDnsSan("f", "karmada.example.com")).toBe("karmada.example.com");
    expect(validateDnsSan("f", "*.karmada-system.svc")).toBe("*.karmada-system.svc");
    const error = configError(() => validateDnsSan("apiServer.extraSans[0]", "Karmada.Example.com"));
    expect(error.message).toMatch(
      /^invalid apiServer\.extraSans\[0\]: "Karmada\.Example\.com" is not a DNS name \(allowed: dot-separated .*; or "\*\."/,
    );
  });
});

describe("names that are mistyped IP addresses", () => {
  it.each(["10.0.0.300", "10.0.0.01", "1.2.3", "10"])("%s is refused as a DNS SAN", (text) => {
    const error = configError(() => validateDnsSan("apiServer.extraSans[0]", text));
    expect(error.problem).toBe(`${JSON.stringify(text)} is neither an IP address nor a DNS name`);
  });

  it("names with digits elsewhere are fine", () => {
    expect(validateDnsSan("f", "10-0-0-1.nip.io")).toBe("10-0-0-1.nip.io");
    expect(validateDnsSan("f", "node1.example.com")).toBe("node1.example.com");
  });
});
