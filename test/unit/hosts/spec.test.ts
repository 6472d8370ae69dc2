import * as pulumi from "@pulumi/pulumi";
import { hostConnection } from "../../../lib/hosts/connection";
import { isValidAddress, resolveHosts } from "../../../lib/hosts/spec";
import { ConfigError } from "../../../lib/validation/errors";
import { SECRET_KEY, hosts } from "../../../devkit/hosts/scriptFixtures";

describe("resolveHosts", () => {
  it("applies port 22, user root and root / by default", () => {
    const [h] = resolveHosts(hosts(1), "etcd.hosts");
    expect([h.port, h.user, h.root]).toEqual([22, "root", "/"]);
  });

  it.each([
    [
      { name: "etcd-1", address: "10.0.0.9" },
      'invalid etcd.hosts[1].name: host "etcd-1" is listed twice (also etcd.hosts[0])',
    ],
    [
      { name: "other", address: "10.0.0.1" },
      'invalid etcd.hosts[1].address: host "other" is listed twice: 10.0.0.1:22 is also etcd.hosts[0] ("etcd-1")',
    ],
    [{ name: "other", address: "10.0.0.1", port: 2222 }, null],
  ])("detects a host listed twice: %j", (second, message) => {
    const list = [hosts(1)[0], { ...second, privateKey: SECRET_KEY }];
    if (message) expect(() => resolveHosts(list, "etcd.hosts")).toThrow(message);
    else expect(resolveHosts(list, "etcd.hosts")).toHaveLength(2);
  });

  it.each([
    [{ name: "etcd-4", address: "10.0.0.4", replaces: "etcd-9" }, null],
    [
      { name: "etcd-4", address: "10.0.0.4", replaces: "etcd-1" },
      'invalid etcd.hosts[1].replaces: "etcd-1" is still listed (etcd.hosts[0]): list "etcd-4" instead of it, not beside it',
    ],
    [
      { name: "etcd-4", address: "10.0.0.4", replaces: "etcd-4" },
      'invalid etcd.hosts[1].replaces: "etcd-4" is not the name of another host',
    ],
    [
      { name: "etcd-4", address: "10.0.0.4", replaces: "Etcd 3" },
      'invalid etcd.hosts[1].replaces: "Etcd 3" is not the name of another host',
    ],
  ])("takes the place of a lost host only when that host is no longer listed: %j", (second, message) => {
    const list = [hosts(1)[0], { ...second, privateKey: SECRET_KEY }];
    if (message) expect(() => resolveHosts(list, "etcd.hosts")).toThrow(message);
    else expect(resolveHosts(list, "etcd.hosts")[1].replaces).toBe("etcd-9");
  });

  it("lets one host only take the place of a lost one", () => {
    const list = [
      { name: "a", address: "10.0.0.1", privateKey: SECRET_KEY, replaces: "lost" },
      { name: "b", address: "10.0.0.2", privateKey: SECRET_KEY, replaces: "lost" },
    ];
    expect(() => resolveHosts(list, "etcd.hosts")).toThrow(
      'invalid etcd.hosts[1].replaces: "lost" is already replaced by "a" (etcd.hosts[0])',
    );
  });

  it.each([
    [
      { address: "10.0.0.256" },
      'invalid h[0].address: "10.0.0.256" is not an IP address or DNS name (allowed: IPv4, IPv6 or DNS name)',
    ],
    [{ address: "bad host" }, 'invalid h[0].address: "bad host" is not an IP address or DNS name'],
    [{ port: 0 }, "invalid h[0].port: port 0 out of range (allowed: 1-65535)"],
    [{ port: 65536 }, "invalid h[0].port: port 65536 out of range (allowed: 1-65535)"],
    [{ port: 22.5 }, "invalid h[0].port: port 22.5 out of range"],
    [{ name: "Etcd_1" }, 'invalid h[0].name: "Etcd_1" is not a valid host name'],
    [{ user: "root;rm" }, 'invalid h[0].user: "root;rm" is not a user name'],
    [{ root: "/tmp/a b" }, 'invalid h[0].root: "/tmp/a b" is not a safe absolute path'],
    [{ hostKey: "AAAA" }, "invalid h[0].hostKey: not an OpenSSH public host key"],
    [
      { proxy: { address: "bastion", port: 70000, privateKey: SECRET_KEY } },
      "invalid h[0].proxy.port: port 70000 out of range",
    ],
  ])("rejects %j", (patch, message) => {
    const h = { ...hosts(1)[0], ...patch };
    expect(() => resolveHosts([h], "h")).toThrow(ConfigError);
    expect(() => resolveHosts([h], "h")).toThrow(message);
  });

  it("rejects an empty list", () => {
    expect(() => resolveHosts([], "etcd.hosts")).toThrow("invalid etcd.hosts: must list at least one host");
  });

  it("accepts IPv4, IPv6 and DNS names", () => {
    expect(["192.168.1.10", "fd00::1", "::1", "etcd-1.example.com", "localhost"].every(isValidAddress)).toBe(
      true,
    );
    expect(["1.2.3", "fd00:::1:::2", "-bad.example", ""].some(isValidAddress)).toBe(false);
  });
});

describe("hostConnection", () => {
  const promiseOf = <T>(o: pulumi.Output<T>) => new Promise<T>((r) => o.apply(r));

  it("has the same fields in the same order every time, and the key as a secret", async () => {
    const spec = { ...hosts(1)[0], port: 2222, extra: "ignored" } as never;
    const [resolved] = resolveHosts([spec], "h");
    const a = hostConnection(resolved);
    const b = hostConnection(resolved);
    expect(Object.keys(a)).toEqual(["host", "port", "user", "privateKey"]);
    expect(Object.keys(b)).toEqual(Object.keys(a));
    expect(await pulumi.isSecret(a.privateKey)).toBe(true);
    expect(await promiseOf(a.privateKey)).toBe(SECRET_KEY);
    expect(a).not.toHaveProperty("extra");
  });

  it("adds a pinned host key and a bastion only when configured", () => {
    const hostKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPinned";
    const [resolved] = resolveHosts(
      [{ ...hosts(1)[0], hostKey, proxy: { address: "bastion.example", privateKey: SECRET_KEY, hostKey } }],
      "h",
    );
    const c = hostConnection(resolved);
    expect(Object.keys(c)).toEqual(["host", "port", "user", "privateKey", "hostKey", "proxy"]);
    expect(Object.keys(c.proxy!)).toEqual(["host", "port", "user", "privateKey", "hostKey"]);
    expect(c.proxy!.port).toBe(22);
  });
});
