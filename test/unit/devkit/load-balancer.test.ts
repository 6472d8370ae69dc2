import {
  CONTROL_PLANE_PORTS,
  HEALTH_CHECK_FALL,
  HEALTH_CHECK_INTERVAL_MS,
  HEALTH_CHECK_TIMEOUT_MS,
  SERVER_KEEPALIVE,
  haproxyConfig,
  uncheckedTwin,
} from "../../../devkit/lab/loadBalancer";

const BACKENDS = [
  { name: "cp1", address: "10.233.0.104" },
  { name: "cp2", address: "10.233.0.105" },
];

/** The lines of section `header` (up to the next blank line). */
function section(config: string, header: string): string[] {
  const lines = config.split("\n");
  const start = lines.indexOf(header);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf("", start);
  return lines.slice(start + 1, end < 0 ? undefined : end).map((l) => l.trim());
}

describe("haproxyConfig", () => {
  const config = haproxyConfig("10.233.0.106", BACKENDS);

  test("each control-plane port is a frontend on the load balancer's address with a backend of every machine", () => {
    for (const port of CONTROL_PLANE_PORTS) {
      expect(section(config, `frontend ${port.name}`)).toEqual([
        `bind 10.233.0.106:${port.listenPort}`,
        `default_backend ${port.name}`,
      ]);
      const backend = section(config, `backend ${port.name}`);
      expect(backend.filter((l) => l.startsWith("server ") && !l.endsWith(" backup"))).toEqual(
        BACKENDS.map((b) => `server ${b.name} ${b.address}:${port.targetPort} check check-ssl verify none`),
      );
    }
  });

  test("the API servers are checked on /readyz, the webhook on /readyz/, each expecting 200; 443 goes to the aggregated API server", () => {
    for (const name of ["karmada-apiserver", "karmada-aggregated-apiserver"])
      expect(section(config, `backend ${name}`)).toEqual(
        expect.arrayContaining(["option httpchk GET /readyz", "http-check expect status 200"]),
      );
    expect(section(config, "backend karmada-webhook")).toContain("option httpchk GET /readyz/");
    expect(section(config, "frontend karmada-aggregated-apiserver")).toContain("bind 10.233.0.106:443");
    expect(section(config, "backend karmada-aggregated-apiserver")).toContain(
      "server cp1 10.233.0.104:7443 check check-ssl verify none",
    );
  });

  test("TLS passes through; a failed backend leaves after the checks it takes, its open sessions are left to finish and idle ones to a dead machine are closed by keepalives", () => {
    const defaults = section(config, "defaults");
    expect(defaults).toEqual(expect.arrayContaining(["mode tcp", "option redispatch 1", "retries 3"]));
    expect(defaults).toContain(
      `default-server inter ${HEALTH_CHECK_INTERVAL_MS}ms fastinter ${HEALTH_CHECK_INTERVAL_MS / 2}ms fall ${HEALTH_CHECK_FALL} rise 2`,
    );
    // a draining API server's requests in flight are not cut when it leaves the pool
    expect(config).not.toMatch(/shutdown-sessions/);
    expect(defaults).toEqual(
      expect.arrayContaining([
        "option srvtcpka",
        `srvtcpka-idle ${SERVER_KEEPALIVE.idleSeconds}s`,
        `srvtcpka-intvl ${SERVER_KEEPALIVE.intervalSeconds}s`,
        `srvtcpka-cnt ${SERVER_KEEPALIVE.count}`,
      ]),
    );
    expect(defaults).toContain(`timeout check ${HEALTH_CHECK_TIMEOUT_MS}ms`);
  });

  test("every machine has an unchecked backup twin, all of them used once no checked machine is left", () => {
    for (const port of CONTROL_PLANE_PORTS) {
      const backend = section(config, `backend ${port.name}`);
      expect(backend).toContain("option allbackups");
      expect(backend.filter((l) => l.endsWith(" backup"))).toEqual(
        BACKENDS.map((b) => `server ${uncheckedTwin(b.name)} ${b.address}:${port.targetPort} backup`),
      );
    }
    expect(uncheckedTwin("cp1")).toBe("cp1-unchecked");
  });

  test("no backend, a name HAProxy cannot take, or two servers of one name, is an error", () => {
    expect(() => haproxyConfig("10.233.0.106", [])).toThrow(/at least one backend/);
    expect(() => haproxyConfig("10.233.0.106", [{ name: "cp 1", address: "10.0.0.1" }])).toThrow(
      /"cp 1" is not a usable HAProxy name/,
    );
    expect(() =>
      haproxyConfig("10.233.0.106", [
        { name: "cp1", address: "10.0.0.1" },
        { name: "cp1-unchecked", address: "10.0.0.2" },
      ]),
    ).toThrow(/two backends would be named "cp1-unchecked"/);
  });
});
