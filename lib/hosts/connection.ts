import * as pulumi from "@pulumi/pulumi";
import { ResolvedHost, ResolvedProxy, hostPort } from "./spec";

/**
 * The SSH connection object handed to `@pulumi/command` remote resources. Built only by
 * {@link hostConnection}, always with the same fields in the same order and nothing computed, because
 * a connection that differs between runs re-runs every command (pulumi-command#447) and stray fields
 * spread from untyped objects have leaked keys into error messages (pulumi-command#773).
 * `hostKey` and `proxy` are fields of @pulumi/command ≥ 1.0.
 */
export interface SshConnection {
  host: string;
  port: number;
  user: string;
  privateKey: pulumi.Output<string>;
  hostKey?: string;
  proxy?: SshProxyConnection;
}

/** The bastion part of an {@link SshConnection}. */
interface SshProxyConnection {
  host: string;
  port: number;
  user: string;
  privateKey: pulumi.Output<string>;
  hostKey?: string;
}

function proxyConnection(proxy: ResolvedProxy): SshProxyConnection {
  const connection: SshProxyConnection = {
    host: proxy.address,
    port: proxy.port,
    user: proxy.user,
    privateKey: pulumi.secret(proxy.privateKey),
  };
  if (proxy.hostKey !== undefined) connection.hostKey = proxy.hostKey;
  return connection;
}

/** Hosts (and bastions) seen without a pinned host key in this program run, in order, not yet warned about. */
const unpinned: string[] = [];
/** Everything warned about so far. */
const warned = new Set<string>();
let flushScheduled = false;

/** The warning about `names`: names and addresses only, never a key. */
function unpinnedHostsWarning(names: readonly string[]): string {
  return (
    `hosts without a pinned hostKey (${names.join(", ")}): their SSH identity is not verified; ` +
    `pin it with hostKey: "<type> <base64>" (ssh-keyscan -t ed25519 <address>)`
  );
}

function flushUnpinnedWarning(): void {
  flushScheduled = false;
  if (unpinned.length === 0) return;
  const names = unpinned.splice(0);
  names.forEach((n) => warned.add(n));
  void pulumi.log.warn(unpinnedHostsWarning(names));
}

/**
 * Notes a host (or bastion) without a pinned host key. One warning per program run lists them all: it
 * is logged once the code building the components has run (the next turn of the event loop), so every
 * host connected in that turn is in it, each once however many commands use it. (A program that builds
 * more hosts after an `await` gets one more warning naming only those.)
 */
function noteUnpinned(label: string): void {
  if (warned.has(label) || unpinned.includes(label)) return;
  unpinned.push(label);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushUnpinnedWarning);
  }
}

/**
 * The one place a connection is built: explicit fields only, the key always a secret Output (so it is
 * stored encrypted even when the caller passed a plain string). A host or bastion without `hostKey` is
 * accepted whatever key it presents (the provider then skips verification); such hosts are named in
 * one warning per program run. With `hostKey`, the provider (@pulumi/command 1.2.1) checks the server's
 * key during the SSH handshake and fails with `ssh: host key mismatch` before any command runs.
 */
export function hostConnection(host: ResolvedHost): SshConnection {
  if (host.hostKey === undefined) noteUnpinned(host.name);
  if (host.proxy !== undefined && host.proxy.hostKey === undefined)
    noteUnpinned(`proxy ${hostPort(host.proxy.address, host.proxy.port)}`);
  const connection: SshConnection = {
    host: host.address,
    port: host.port,
    user: host.user,
    privateKey: pulumi.secret(host.privateKey),
  };
  if (host.hostKey !== undefined) connection.hostKey = host.hostKey;
  if (host.proxy !== undefined) connection.proxy = proxyConnection(host.proxy);
  return connection;
}
