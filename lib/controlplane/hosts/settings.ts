/**
 * The resolved hosts-mode settings every script, flag and endpoint is computed from: their types and the
 * constants naming their parts. Resolution and validation (settings.ts) build them; the builders
 * (flags, endpoints, layout, scripts) only read them.
 */
import type { ServiceManager } from "../../hosts/service";
import type { ResolvedHost } from "../../hosts/spec";
import type { HostPort } from "../../validation/endpoints";
import type { ControlPlaneComponent } from "../flags-ports";
import type { ComponentBinary } from "./binaries";
import type { ApiServiceHosts } from "./config";

/** Directories on every control-plane host, before rooting. */
export interface ControlPlaneHostPaths {
  /** Where binaries are installed (`hosts.binDir`). */
  readonly binDir: string;
  /** One sub-directory per component: `pki/` and `karmada.config`. */
  readonly configDir: string;
  /** Download cache of binary artifacts (`/var/cache/pulumi-karmada`). */
  readonly cacheDir: string;
  /** One `<component>.log` per component under the supervisor (`/var/log/pulumi-karmada`). */
  readonly logDir: string;
  /** Supervisor pid files (one sub-directory per service). */
  readonly stateDir: string;
}

/**
 * Which install phase a component's services belong to (see the plan): `core` is karmada-apiserver
 * and kube-controller-manager — garbage collection and namespace finalization must run for as long as
 * any object inside Karmada exists, so it starts before and stops after all of them.
 */
export type ControlPlanePhase = "core" | "aggregated" | "controllers";

/** Resolved hosts-mode settings: every script is a pure function of these and the control plane's. */
export interface ControlPlaneHostsSettings {
  /** The machines (`hosts.machines`), with SSH defaults applied. */
  readonly machines: readonly ResolvedHost[];
  /** What keeps the components running: `systemd` or `supervisor`. */
  readonly serviceManager: ServiceManager;
  /** Enabled components in install order. */
  readonly components: readonly ControlPlaneComponent[];
  /** Binary of each enabled component. */
  readonly binaries: Readonly<Partial<Record<ControlPlaneComponent, ComponentBinary>>>;
  /** Where karmada-apiserver calls karmada-webhook. */
  readonly webhook: HostPort;
  /** Names fronting the aggregated APIs (absent: Endpoints with the host addresses). */
  readonly apiServiceHosts: ApiServiceHosts;
  /**
   * karmada-apiserver routes aggregated APIs to Endpoints (`--enable-aggregator-routing`): true when
   * the enabled APIs use Endpoints. Its resolver refuses ExternalName Services, so fronted APIs need it off.
   */
  readonly aggregatorRouting: boolean;
  /** Whether components listen on all interfaces instead of the host's own address. */
  readonly bindAllInterfaces: boolean;
  /** Seconds a component may take to become healthy on a host before `up` fails. */
  readonly healthTimeoutSeconds: number;
  /** Seconds karmada-apiserver serves on after TERM with /readyz failing (`hosts.apiServerDrainSeconds`). */
  readonly apiServerDrainSeconds: number;
  /** Directories on every host. */
  readonly paths: ControlPlaneHostPaths;
}

/** Aggregated API servers and the `apiServiceHosts` key naming their front. */
export const API_SERVICE_KEYS: Partial<Record<ControlPlaneComponent, keyof ApiServiceHosts>> = {
  "karmada-aggregated-apiserver": "aggregatedApiserver",
  "karmada-metrics-adapter": "metricsAdapter",
  "karmada-search": "search",
};
