/**
 * Options of a loopback cluster and their defaults, checked before anything starts: every process binds
 * to one 127.0.0.0/8 address, never anything else.
 */
import { cidrAddress, validateCidr } from "../../lib/validation/cidr";
import { validateDns1123Label } from "../../lib/validation/dns";
import { ConfigError, show } from "../../lib/validation/errors";
import { parseIPv4 } from "../../lib/validation/ip";
import { validatePort } from "../../lib/validation/numbers";
import type { CaPair } from "../pki";

/** TCP ports, all on the cluster's one loopback address. */
interface ClusterPorts {
  /** kube-apiserver's secure port. @default 6443 */
  readonly apiServer: number;
  /** etcd client port (plain HTTP: only the API server on the same address talks to it). @default 2379 */
  readonly etcdClient: number;
  /** etcd peer port (single member; bound but unused). @default 2380 */
  readonly etcdPeer: number;
  /** kube-controller-manager's secure (health) port. @default 10257 */
  readonly controllerManager: number;
}

/** What {@link startCluster} is asked for. */
export interface ClusterOptions {
  /** DNS label: names files and the kubeconfig's cluster, user and context (`loopback-<name>`). */
  readonly name: string;
  /** IPv4 loopback address (127.0.0.0/8) every process binds to. */
  readonly address: string;
  /** @default { apiServer: 6443, etcdClient: 2379, etcdPeer: 2380, controllerManager: 10257 } */
  readonly ports?: Partial<ClusterPorts>;
  /**
   * Directory for PKI, etcd data, logs and pid files. A given directory is kept by `stop()` unless asked;
   * PKI already in it is reused (a restarted sandbox keeps its certificates).
   * @default - a new temporary directory, removed by `stop()`
   */
  readonly dir?: string;
  /** CA that signs the serving and admin certificates and that client certificates are checked against. @default - generated */
  readonly ca?: CaPair;
  /** Run kube-controller-manager (namespace deletion, garbage collection, service-account tokens). @default true */
  readonly controllerManager?: boolean;
  /** Service CIDR: addresses are only allocated in etcd, nothing binds them. @default "10.96.0.0/16" */
  readonly serviceCidr?: string;
  /** How long startup may take until /readyz answers (and the controllers work). @default 120000 */
  readonly readyTimeoutMs?: number;
}

/** Options with every default applied. */
export interface ResolvedClusterOptions {
  readonly name: string;
  readonly address: string;
  readonly ports: ClusterPorts;
  readonly dir?: string;
  readonly ca?: CaPair;
  readonly controllerManager: boolean;
  readonly serviceCidr: string;
  /** The `kubernetes` Service's IP (first address of the service CIDR): a certificate SAN. */
  readonly serviceIp: string;
  readonly readyTimeoutMs: number;
}

const DEFAULT_PORTS: ClusterPorts = {
  apiServer: 6443,
  etcdClient: 2379,
  etcdPeer: 2380,
  controllerManager: 10257,
};

/** Validates `options` (ConfigError naming the field) and applies the defaults. */
export function resolveClusterOptions(options: ClusterOptions): ResolvedClusterOptions {
  validateDns1123Label("name", options.name);
  const ip = typeof options.address === "string" ? parseIPv4(options.address) : undefined;
  if (!ip || ip.value >> 24n !== 127n) {
    throw new ConfigError(
      "address",
      `${show(options.address)} is not an IPv4 loopback address`,
      "127.0.0.0/8, e.g. 127.0.2.10",
    );
  }
  const ports = { ...DEFAULT_PORTS, ...options.ports };
  const used = new Map<number, string>();
  for (const [key, port] of Object.entries(ports)) {
    validatePort(`ports.${key}`, port);
    const other = used.get(port);
    if (other)
      throw new ConfigError(
        `ports.${key}`,
        `${port} is already ports.${other}`,
        "a distinct port per process",
      );
    used.set(port, key);
  }
  const serviceCidr = options.serviceCidr ?? "10.96.0.0/16";
  const cidr = validateCidr("serviceCidr", serviceCidr);
  if (cidr.network.family !== 4)
    throw new ConfigError("serviceCidr", `${show(serviceCidr)} is not IPv4`, "an IPv4 CIDR");
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  if (!Number.isInteger(readyTimeoutMs) || readyTimeoutMs <= 0) {
    throw new ConfigError(
      "readyTimeoutMs",
      `${show(readyTimeoutMs)} is not a positive number of milliseconds`,
    );
  }
  return {
    name: options.name,
    address: options.address,
    ports,
    dir: options.dir,
    ca: options.ca,
    controllerManager: options.controllerManager ?? true,
    serviceCidr,
    serviceIp: cidrAddress("serviceCidr", cidr, 1),
    readyTimeoutMs,
  };
}
