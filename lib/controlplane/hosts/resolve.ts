import { isIP } from "node:net";
import { resolveArtifact } from "../../hosts/artifact";
import { SERVICE_MANAGERS } from "../../hosts/service";
import { safePath } from "../../hosts/shell";
import { ResolvedHost, resolveHosts } from "../../hosts/spec";
import { validateHost, validateHostPort } from "../../validation/endpoints";
import { ErrorCollector, check, show } from "../../validation/errors";
import { keyField } from "../../validation/labels";
import { hasOwnKey, requireMap } from "../../validation/maps";
import { validateInteger } from "../../validation/numbers";
import { COMPONENT_KEYS, ComponentKey, componentKeyOf } from "../config";
import { ControlPlaneComponent, componentPorts } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { ComponentBinary, VERSION_FORM, binaryFamily, binaryFile } from "./binaries";
import { ApiServiceHosts, ControlPlaneHostsConfig } from "./config";
import { API_SERVICE_KEYS, ControlPlaneHostsSettings, ControlPlanePhase } from "./settings";
import { CONTROL_PLANE_HOSTS_DEFAULTS, MAX_API_SERVER_DRAIN_SECONDS } from "./defaults";
import { checkExtraArgs } from "./validate";

/** `host:port` or `[ipv6]:port` (a bare IPv6 address also ends in `:digits`). */
const HOST_WITH_PORT = /^\[.*\]:\d+$|^[^:]+:\d+$/;

/** Install order; within a phase, order is irrelevant (components only talk to the API servers). */
const INSTALL_ORDER: readonly ControlPlaneComponent[] = [
  "karmada-apiserver",
  "kube-controller-manager",
  "karmada-aggregated-apiserver",
  "karmada-search",
  "karmada-metrics-adapter",
  "karmada-controller-manager",
  "karmada-scheduler",
  "karmada-webhook",
  "karmada-descheduler",
];

/** The phase of a component: API server and kube-controller-manager, servers behind APIServices, the rest. */
export function componentPhase(component: ControlPlaneComponent): ControlPlanePhase {
  if (component === "karmada-apiserver" || component === "kube-controller-manager") return "core";
  if (
    component === "karmada-aggregated-apiserver" ||
    component === "karmada-search" ||
    component === "karmada-metrics-adapter"
  )
    return "aggregated";
  return "controllers";
}

/** Key of `components` / `apiServiceHosts` for a component. */
function componentKey(component: ControlPlaneComponent): ComponentKey {
  return componentKeyOf(component)!;
}

/** Whether Kubernetes accepts `address` in Endpoints: an IP, not loopback, link-local or unspecified. */
export function isEndpointAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !/^(127\.|169\.254\.|0\.)/.test(address);
  if (family === 6) return !/^(::1?$|fe[89ab][0-9a-f]:)/i.test(address);
  return false;
}

function resolveBinaries(
  config: ControlPlaneHostsConfig,
  settings: ControlPlaneSettings,
  components: readonly ControlPlaneComponent[],
): Partial<Record<ControlPlaneComponent, ComponentBinary>> {
  const kubernetesVersion = config.kubernetesVersion ?? settings.release.kubernetesVersion;
  check(
    VERSION_FORM.test(kubernetesVersion),
    "hosts.kubernetesVersion",
    `${show(kubernetesVersion)} is not a release version`,
    "vX.Y.Z",
  );
  const overrides = config.components ?? {};
  requireMap("hosts.components", overrides, "a map of component key to binaries/version");
  for (const key of Object.keys(overrides) as ComponentKey[]) {
    check(
      hasOwnKey(COMPONENT_KEYS, key),
      keyField("hosts.components", key),
      `unknown component ${show(key)}`,
      Object.keys(COMPONENT_KEYS).join(", "),
    );
    check(
      components.includes(COMPONENT_KEYS[key] as ControlPlaneComponent),
      `hosts.components.${key}`,
      `${COMPONENT_KEYS[key]} is not enabled`,
      `enable it in components.${key} first`,
    );
  }
  const binaries: Partial<Record<ControlPlaneComponent, ComponentBinary>> = {};
  for (const component of components) {
    const key = componentKey(component);
    const own = overrides[key] ?? {};
    const family = binaryFamily(component);
    const version = own.version ?? (family === "kubernetes" ? kubernetesVersion : settings.release.version);
    check(
      VERSION_FORM.test(version),
      `hosts.components.${key}.version`,
      `${show(version)} is not a release version`,
      "vX.Y.Z",
    );
    const source = own.binaries ?? config.binaries;
    const field = own.binaries ? `hosts.components.${key}.binaries` : "hosts.binaries";
    check(
      typeof source === "object" &&
        source !== null &&
        (source.url !== undefined || source.path !== undefined),
      field,
      `is required: Karmada publishes no server binaries, so ${binaryFile(component)} has no default source`,
      "{ url, sha256 } of a mirror .tar.gz, or { path } of a directory or .tar.gz on the hosts",
    );
    binaries[component] = {
      file: binaryFile(component),
      family,
      version,
      artifact: resolveArtifact(source, "", field),
    };
  }
  return binaries;
}

function resolveApiServiceHosts(
  config: ControlPlaneHostsConfig,
  settings: ControlPlaneSettings,
  machines: readonly ResolvedHost[],
  components: readonly ControlPlaneComponent[],
): ApiServiceHosts {
  const given = config.apiServiceHosts ?? {};
  const resolved: Record<string, string> = {};
  for (const [component, key] of Object.entries(API_SERVICE_KEYS) as [
    ControlPlaneComponent,
    keyof ApiServiceHosts,
  ][]) {
    const field = `hosts.apiServiceHosts.${key}`;
    if (given[key] !== undefined) {
      resolved[key] = validateHost(field, given[key]!);
      continue;
    }
    if (!components.includes(component)) continue;
    const unusable = machines.find((m) => !isEndpointAddress(m.address));
    check(
      unusable === undefined,
      field,
      `is required: host ${show(unusable?.name)} has address ${show(unusable?.address)}, which Kubernetes does not accept in Endpoints`,
      `a DNS name or IP forwarding port 443 to port ${componentPorts(component, settings).secure} of the hosts`,
    );
  }
  const enabled = Object.entries(API_SERVICE_KEYS).filter(([c]) =>
    components.includes(c as ControlPlaneComponent),
  );
  const fronted = enabled.filter(([, key]) => resolved[key!] !== undefined);
  check(
    fronted.length === 0 || fronted.length === enabled.length,
    "hosts.apiServiceHosts",
    `fronts ${fronted.map(([, k]) => k).join(", ")} but not ${enabled
      .filter(([, k]) => resolved[k!] === undefined)
      .map(([, k]) => k)
      .join(", ")}: karmada-apiserver routes either every aggregated API to Endpoints or none`,
    "a front for every enabled aggregated API, or for none",
  );
  return resolved;
}

/**
 * Defaults and validation of hosts mode, given the control plane's resolved settings (which already
 * carry the external endpoint). Every problem is a ConfigError naming the field under `hosts.`.
 */
export function resolveControlPlaneHostsSettings(
  config: ControlPlaneHostsConfig,
  settings: ControlPlaneSettings,
): ControlPlaneHostsSettings {
  check(
    config !== undefined && config !== null,
    "hosts",
    "is required in hosts mode",
    "{ machines: [...], binaries: {...} }",
  );
  // independent checks all run; their problems are reported together
  const errors = new ErrorCollector();
  const run = <T>(fn: () => T): T => errors.attempt(fn) as T;
  const machines = run(() => resolveHosts(config.machines, "hosts.machines"));
  const serviceManager = config.serviceManager ?? CONTROL_PLANE_HOSTS_DEFAULTS.serviceManager;
  run(() =>
    check(
      SERVICE_MANAGERS.includes(serviceManager),
      "hosts.serviceManager",
      `${show(serviceManager)} is not a service manager`,
      SERVICE_MANAGERS.join(", "),
    ),
  );
  if (serviceManager === "systemd" && machines) {
    machines.forEach((m, i) =>
      run(() =>
        check(
          m.root === "/",
          `hosts.machines[${i}].root`,
          `systemd only sees units under "/", not ${show(m.root)}`,
          '"/" or serviceManager "supervisor"',
        ),
      ),
    );
  }
  const components = INSTALL_ORDER.filter((c) => settings.components[c].enabled);
  run(() => checkExtraArgs(settings, components));
  const webhookPort = componentPorts("karmada-webhook", settings).secure!;
  const apiServiceHosts = machines
    ? run(() => resolveApiServiceHosts(config, settings, machines, components))
    : undefined;
  const external = settings.apiServer.externalEndpoint;
  const webhook = run(() => {
    check(
      config.webhookEndpoint === undefined || typeof config.webhookEndpoint === "string",
      "hosts.webhookEndpoint",
      `${show(config.webhookEndpoint)} is not an address`,
      "host[:port]",
    );
    return config.webhookEndpoint
      ? HOST_WITH_PORT.test(config.webhookEndpoint)
        ? validateHostPort("hosts.webhookEndpoint", config.webhookEndpoint)
        : {
            host: validateHost("hosts.webhookEndpoint", config.webhookEndpoint.replace(/^\[(.*)\]$/, "$1")),
            port: webhookPort,
          }
      : { host: external?.host ?? machines?.[0]?.address ?? "", port: webhookPort };
  });
  const binaries = run(() => resolveBinaries(config, settings, components));
  const healthTimeoutSeconds = run(() =>
    validateInteger(
      "hosts.healthTimeoutSeconds",
      config.healthTimeoutSeconds ?? CONTROL_PLANE_HOSTS_DEFAULTS.healthTimeoutSeconds,
      5,
      3600,
    ),
  );
  const apiServerDrainSeconds = run(() =>
    validateInteger(
      "hosts.apiServerDrainSeconds",
      config.apiServerDrainSeconds ??
        CONTROL_PLANE_HOSTS_DEFAULTS.apiServerDrainSeconds(machines?.length ?? 0),
      0,
      MAX_API_SERVER_DRAIN_SECONDS,
    ),
  );
  const binDir = run(() => safePath(config.binDir ?? CONTROL_PLANE_HOSTS_DEFAULTS.binDir, "hosts.binDir"));
  const configDir = run(() =>
    safePath(config.configDir ?? CONTROL_PLANE_HOSTS_DEFAULTS.configDir, "hosts.configDir"),
  );
  errors.throwIfAny();
  return {
    machines,
    serviceManager,
    components,
    binaries,
    webhook,
    apiServiceHosts: apiServiceHosts!,
    aggregatorRouting: !components.some((c) => API_SERVICE_KEYS[c] && apiServiceHosts![API_SERVICE_KEYS[c]!]),
    bindAllInterfaces: config.bindAllInterfaces ?? CONTROL_PLANE_HOSTS_DEFAULTS.bindAllInterfaces,
    healthTimeoutSeconds,
    apiServerDrainSeconds,
    paths: {
      binDir,
      configDir,
      cacheDir: CONTROL_PLANE_HOSTS_DEFAULTS.cacheDir,
      logDir: CONTROL_PLANE_HOSTS_DEFAULTS.logDir,
      stateDir: CONTROL_PLANE_HOSTS_DEFAULTS.stateDir,
    },
  };
}
