import * as fc from "fast-check";
import { formatHostPort, validateHost, validateHostPort } from "../../../lib/validation/endpoints";
import { urlPort, validateHttpsUrl } from "../../../lib/validation/urls";
import { configError } from "./config-error";

describe("validateHost", () => {
  it("accepts DNS names and IPs, canonicalising IPs", () => {
    expect(validateHost("f", "karmada.example.com")).toBe("karmada.example.com");
    expect(validateHost("f", "10.0.0.1")).toBe("10.0.0.1");
    expect(validateHost("f", "FD00:0::1")).toBe("fd00::1");
  });

  it("rejects dotted quads that are not IPs instead of treating them as names", () => {
    expect(configError(() => validateHost("apiServer.externalEndpoint.host", "10.0.0.256")).message).toBe(
      'invalid apiServer.externalEndpoint.host: "10.0.0.256" is not a host name or IP address ' +
        "(allowed: a DNS-1123 subdomain, an IPv4 address or an IPv6 address)",
    );
  });
});

describe("validateHostPort", () => {
  it("round-trips generated endpoints of every host kind", () => {
    const host = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.domain().map((d) => d.toLowerCase()),
    );
    fc.assert(
      fc.property(host, fc.integer({ min: 1, max: 65535 }), (h, port) => {
        const canonical = validateHost("f", h);
        const parsed = validateHostPort("f", formatHostPort({ host: canonical, port }));
        expect(parsed).toEqual({ host: canonical, port });
      }),
    );
  });

  it("requires brackets around IPv6 and a port in range", () => {
    expect(validateHostPort("f", "[fd00::1]:5443")).toEqual({ host: "fd00::1", port: 5443 });
    expect(configError(() => validateHostPort("etcd", "fd00::1:5443")).problem).toBe(
      '"fd00::1:5443" is not host:port',
    );
    expect(configError(() => validateHostPort("etcd", "[karmada]:5443")).problem).toBe(
      '"karmada" in brackets is not an IPv6 address',
    );
    expect(configError(() => validateHostPort("etcd", "karmada:70000")).allowed).toBe("an integer 1–65535");
    expect(configError(() => validateHostPort("etcd", "karmada")).field).toBe("etcd");
  });
});

describe("validateHttpsUrl", () => {
  it("accepts https URLs with DNS, IPv4 or IPv6 hosts", () => {
    expect(urlPort(validateHttpsUrl("f", "https://karmada-apiserver.karmada-system.svc:5443"))).toBe(5443);
    expect(urlPort(validateHttpsUrl("f", "https://10.0.0.1"))).toBe(443);
    expect(validateHttpsUrl("f", "https://[fd00::1]:2379").hostname).toBe("[fd00::1]");
  });

  it.each([
    ["http://karmada:5443", "does not use https"],
    ["https://user:pw@karmada:5443", "has credentials, a query or a fragment"],
    ["https://karmada:5443/?x=1", "has credentials, a query or a fragment"],
    ["https://karmada:5443#x", "has credentials, a query or a fragment"],
    ["karmada:5443", "does not use https"],
    ["not a url", "is not a URL"],
  ])("rejects %s", (url, problem) => {
    const error = configError(() => validateHttpsUrl("external.endpoints[0]", url));
    expect(error.field).toBe("external.endpoints[0]");
    expect(error.problem).toBe(`${JSON.stringify(url)} ${problem}`);
  });

  it("validates the host as written, not as URL normalised it", () => {
    expect(configError(() => validateHttpsUrl("f", "https://Karmada:5443")).problem).toBe(
      '"Karmada" is not a host name or IP address',
    );
    expect(configError(() => validateHttpsUrl("f", "https://karmada:0")).allowed).toBe("an integer 1–65535");
  });
});
