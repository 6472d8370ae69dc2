import * as pulumi from "@pulumi/pulumi";
import { ConfigError, ErrorCollector, check, show } from "../validation/errors";
import { checkedWhenKnown } from "../validation/deferred";
import { validateSshPrivateKey } from "./ssh-key";
import { SAFE_PATH } from "./shell";

/** A jump host the SSH connection goes through. */
export interface ProxySpec {
  /** Address (IP or DNS name) of the bastion. */
  address: string;
  /**
   * SSH port of the bastion.
   * @default 22
   */
  port?: number;
  /**
   * Login user on the bastion.
   * @default "root"
   */
  user?: string;
  /** Private key (OpenSSH or PEM) for the bastion; must be a Pulumi secret. */
  privateKey: pulumi.Input<string>;
  /** Pinned SSH host key of the bastion (`ssh-ed25519 AAAA…`); unset means not verified. */
  hostKey?: string;
}

/** One machine reached over SSH. */
export interface HostSpec {
  /** Stable name of the host; also the etcd member name. Lower-case letters, digits and `-`. */
  name: string;
  /** IPv4, IPv6 or DNS name the host is reached at and its services listen on. */
  address: string;
  /**
   * SSH port.
   * @default 22
   */
  port?: number;
  /**
   * Login user; scripts need root (or passwordless root-equivalent) to install services.
   * @default "root"
   */
  user?: string;
  /** Private key (OpenSSH or PEM); pass it as a Pulumi secret (`config.requireSecret`). */
  privateKey: pulumi.Input<string>;
  /** Pinned SSH host key (`ssh-ed25519 AAAA…`); unset means the host key is not verified. */
  hostKey?: string;
  /** Bastion the connection goes through. */
  proxy?: ProxySpec;
  /**
   * Filesystem root every path on this host is relative to. `/` in production; test beds give each
   * host its own directory.
   * @default "/"
   */
  root?: string;
  /**
   * Name of a host that is gone for good and whose place this one takes (list this host instead of
   * it). Its commands become this host's (Pulumi aliases), so nothing ever runs on the lost machine:
   * an etcd member there is removed from the cluster from the surviving hosts and this host joins as
   * a new member; a control-plane host's services start here first, before they restart on the
   * machines that kept serving (so an API server answers throughout). Keep it until the `up` that
   * replaced the host has succeeded; removing it afterwards changes nothing. Never bring the lost
   * machine back with its old disk: wipe it first (docs/operations.md, "A host that never comes back").
   * @default undefined (replaces nothing)
   */
  replaces?: string;
}

/** A host after defaults and validation. */
export interface ResolvedHost {
  /** Stable name of the host (etcd member name, prefix of its commands' Pulumi names). */
  readonly name: string;
  /** IPv4, IPv6 or DNS name the host is reached at and its services listen on. */
  readonly address: string;
  /** SSH port (22 unless given). */
  readonly port: number;
  /** Login user ("root" unless given). */
  readonly user: string;
  /** SSH private key, a Pulumi secret. */
  readonly privateKey: pulumi.Input<string>;
  /** Pinned SSH host key; absent: not verified. */
  readonly hostKey?: string;
  /** Bastion the connection goes through; absent: direct. */
  readonly proxy?: ResolvedProxy;
  /** Filesystem root every path on the host is relative to ("/" unless given). */
  readonly root: string;
  /** The lost host this one takes the place of, if any. */
  readonly replaces?: string;
}

/** A bastion after defaults. */
export interface ResolvedProxy {
  /** Address (IP or DNS name) of the bastion. */
  readonly address: string;
  /** SSH port of the bastion (22 unless given). */
  readonly port: number;
  /** Login user on the bastion ("root" unless given). */
  readonly user: string;
  /** SSH private key for the bastion, a Pulumi secret. */
  readonly privateKey: pulumi.Input<string>;
  /** Pinned SSH host key of the bastion; absent: not verified. */
  readonly hostKey?: string;
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const USER = /^[a-z_][a-z0-9_-]{0,31}$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const DNS_NAME =
  /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const IPV6 = /^[0-9a-fA-F:]+$/;
const HOST_KEY = /^(ssh-(ed25519|rsa)|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/=]+( .*)?$/;

/** True for an IPv4 address, an IPv6 address (without brackets) or a DNS name. */
export function isValidAddress(address: string): boolean {
  if (IPV4.test(address)) return true;
  if (address.includes(":")) return IPV6.test(address) && address.split("::").length <= 2;
  // All-numeric dotted names that failed the IPv4 test are typos such as 10.0.0.256.
  return DNS_NAME.test(address) && !/^[\d.]+$/.test(address);
}

/** `address:port`, bracketing IPv6, as used in URLs and messages. */
export function hostPort(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

function checkPort(port: number, field: string): void {
  check(
    Number.isInteger(port) && port >= 1 && port <= 65535,
    field,
    `port ${show(port)} out of range`,
    "1-65535",
  );
}

function checkAddress(address: string, field: string): void {
  check(
    typeof address === "string" && isValidAddress(address),
    field,
    `${show(address)} is not an IP address or DNS name`,
    "IPv4, IPv6 or DNS name",
  );
}

function resolveProxy(proxy: ProxySpec, field: string): ResolvedProxy {
  checkAddress(proxy.address, `${field}.address`);
  const port = proxy.port ?? 22;
  checkPort(port, `${field}.port`);
  const user = proxy.user ?? "root";
  check(USER.test(user), `${field}.user`, `${show(user)} is not a user name`, "[a-z_][a-z0-9_-]*");
  if (proxy.hostKey !== undefined) {
    check(
      HOST_KEY.test(proxy.hostKey),
      `${field}.hostKey`,
      "not an OpenSSH public host key",
      "'<type> <base64>'",
    );
  }
  check(proxy.privateKey !== undefined && proxy.privateKey !== "", `${field}.privateKey`, "is required");
  // a plain key is parsed now, a secret one once known: the connection is built from the checked key
  const privateKey = checkedWhenKnown(proxy.privateKey, (key) =>
    validateSshPrivateKey(`${field}.privateKey`, key),
  );
  return { address: proxy.address, port, user, privateKey, hostKey: proxy.hostKey };
}

/** Applies defaults to and validates one host; `field` is its dotted path for messages. */
export function resolveHost(host: HostSpec, field: string): ResolvedHost {
  check(
    typeof host.name === "string" && HOST_NAME.test(host.name),
    `${field}.name`,
    `${show(host.name)} is not a valid host name`,
    "lower-case letters, digits and '-', at most 63",
  );
  checkAddress(host.address, `${field}.address`);
  const port = host.port ?? 22;
  checkPort(port, `${field}.port`);
  const user = host.user ?? "root";
  check(USER.test(user), `${field}.user`, `${show(user)} is not a user name`, "[a-z_][a-z0-9_-]*");
  check(host.privateKey !== undefined && host.privateKey !== "", `${field}.privateKey`, "is required");
  // a plain key is parsed now, a secret one once known: every connection is built from the checked key
  const privateKey = checkedWhenKnown(host.privateKey, (key) =>
    validateSshPrivateKey(`${field}.privateKey`, key),
  );
  if (host.hostKey !== undefined) {
    check(
      HOST_KEY.test(host.hostKey),
      `${field}.hostKey`,
      "not an OpenSSH public host key",
      "'<type> <base64>'",
    );
  }
  const root = host.root ?? "/";
  check(
    SAFE_PATH.test(root),
    `${field}.root`,
    `${show(root)} is not a safe absolute path`,
    "/[A-Za-z0-9._+@/-]*",
  );
  if (host.replaces !== undefined) {
    check(
      typeof host.replaces === "string" && HOST_NAME.test(host.replaces) && host.replaces !== host.name,
      `${field}.replaces`,
      `${show(host.replaces)} is not the name of another host`,
      "lower-case letters, digits and '-', at most 63, not the host's own name",
    );
  }
  return {
    name: host.name,
    address: host.address,
    port,
    user,
    privateKey,
    hostKey: host.hostKey,
    proxy: host.proxy ? resolveProxy(host.proxy, `${field}.proxy`) : undefined,
    root,
    ...(host.replaces !== undefined ? { replaces: host.replaces } : {}),
  };
}

/**
 * Resolves a host list: defaults, per-host validation, and no host listed twice — neither the same
 * name nor the same `address:port` (two entries for one machine would run two members on it).
 * `field` is the dotted path of the list, e.g. `etcd.hosts`.
 */
export function resolveHosts(hosts: readonly HostSpec[], field: string): ResolvedHost[] {
  check(Array.isArray(hosts) && hosts.length > 0, field, "must list at least one host");
  // every host's problems at once
  const errors = new ErrorCollector();
  const resolved = hosts.map((host, i) => errors.attempt(() => resolveHost(host, `${field}[${i}]`))!);
  errors.throwIfAny();
  const byName = new Map<string, number>();
  const byEndpoint = new Map<string, number>();
  resolved.forEach((host, i) => {
    const endpoint = hostPort(host.address.toLowerCase(), host.port);
    const sameName = byName.get(host.name);
    if (sameName !== undefined) {
      throw new ConfigError(
        `${field}[${i}].name`,
        `host ${show(host.name)} is listed twice (also ${field}[${sameName}])`,
      );
    }
    const sameEndpoint = byEndpoint.get(endpoint);
    if (sameEndpoint !== undefined) {
      throw new ConfigError(
        `${field}[${i}].address`,
        `host ${show(host.name)} is listed twice: ${endpoint} is also ${field}[${sameEndpoint}] (${show(resolved[sameEndpoint].name)})`,
      );
    }
    byName.set(host.name, i);
    byEndpoint.set(endpoint, i);
  });
  // a host replaced must be gone from the list, and taken over once
  const replacedBy = new Map<string, number>();
  resolved.forEach((host, i) => {
    if (host.replaces === undefined) return;
    const listed = byName.get(host.replaces);
    if (listed !== undefined) {
      throw new ConfigError(
        `${field}[${i}].replaces`,
        `${show(host.replaces)} is still listed (${field}[${listed}]): list ${show(host.name)} instead of it, not beside it`,
      );
    }
    const other = replacedBy.get(host.replaces);
    if (other !== undefined) {
      throw new ConfigError(
        `${field}[${i}].replaces`,
        `${show(host.replaces)} is already replaced by ${show(resolved[other].name)} (${field}[${other}])`,
      );
    }
    replacedBy.set(host.replaces, i);
  });
  return resolved;
}
