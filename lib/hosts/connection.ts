import * as pulumi from "@pulumi/pulumi";
import { ResolvedHost, ResolvedProxy } from "./spec";

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
export interface SshProxyConnection {
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

/**
 * The one place a connection is built: explicit fields only, the key always a secret Output (so it is
 * stored encrypted even when the caller passed a plain string).
 */
export function hostConnection(host: ResolvedHost): SshConnection {
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
