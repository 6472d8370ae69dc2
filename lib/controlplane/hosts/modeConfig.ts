import { resolveHost } from "../../hosts/spec";
import { check, ConfigError, ErrorCollector, show } from "../../validation/errors";
import { ComponentConfig, ControlPlaneConfig } from "../config";
import { CONTROL_PLANE_DEFAULTS } from "../defaults";
import { resolveControlPlaneSettings } from "../resolve";
import { ControlPlaneSettings } from "../settings";
import { validateControlPlaneConfig } from "../validate";
import { keyField } from "../../validation/labels";
import { isPlainMap } from "../../validation/maps";
import { ControlPlaneHostsConfig } from "./config";
import { ControlPlaneHostsSettings } from "./settings";
import { resolveControlPlaneHostsSettings } from "./resolve";

/** Per-component settings that describe pods; on hosts one process runs per machine instead. */
export const POD_ONLY_FIELDS: readonly (keyof ComponentConfig)[] = [
  "replicas",
  "image",
  "imagePullPolicy",
  "resources",
  "labels",
  "annotations",
  "priorityClassName",
];

/** apiServer settings that describe the host-cluster Service. */
export const SERVICE_ONLY_FIELDS = [
  "serviceType",
  "nodePort",
  "loadBalancerClass",
  "serviceAnnotations",
] as const;

/**
 * The control-plane configuration as hosts mode reads it: settings that only make sense for pods or the
 * host-cluster Service are refused (naming the field), and `apiServer.externalEndpoint` — what clients,
 * members and the Karmada provider dial — defaults to the only machine's address. With several machines
 * it is required: a VIP, load balancer or DNS name in front of them.
 */
export function hostsModeControlPlaneConfig(
  config: ControlPlaneConfig,
  hosts: ControlPlaneHostsConfig | undefined,
): ControlPlaneConfig {
  check(
    hosts !== undefined && hosts !== null,
    "hosts",
    "is required in hosts mode",
    "{ machines: [...], binaries: {...} }",
  );
  check(
    Array.isArray(hosts.machines) && hosts.machines.length > 0,
    "hosts.machines",
    "must list at least one host",
  );
  const errors = new ErrorCollector();
  for (const [key, component] of Object.entries(isPlainMap(config.components) ? config.components : {})) {
    for (const field of POD_ONLY_FIELDS) {
      if (component?.[field] !== undefined) {
        errors.add(
          new ConfigError(
            `${keyField("components", key)}.${field}`,
            "does not apply in hosts mode: one process runs on each of hosts.machines",
            'mode "containerized" for pod settings',
          ),
        );
      }
    }
  }
  for (const field of SERVICE_ONLY_FIELDS) {
    if (config.apiServer?.[field] !== undefined) {
      errors.add(
        new ConfigError(
          `apiServer.${field}`,
          "does not apply in hosts mode: there is no host-cluster Service",
          "apiServer.externalEndpoint for the VIP or DNS name in front of the hosts",
        ),
      );
    }
  }
  errors.attempt(() =>
    check(
      config.images === undefined,
      "images",
      "does not apply in hosts mode (no images)",
      "hosts.binaries",
    ),
  );
  errors.throwIfAny();
  const external = config.apiServer?.externalEndpoint;
  if (external === undefined) {
    check(
      hosts.machines.length === 1,
      "apiServer.externalEndpoint",
      `is required with ${hosts.machines.length} control-plane hosts: clients and members need one address in front of them`,
      "a VIP, load balancer or DNS name, e.g. karmada.example.com:5443",
    );
  }
  // validated here so a bad address is reported as the machine's, not as the endpoint's
  const first = external ?? resolveHost(hosts.machines[0], "hosts.machines[0]").address;
  return {
    ...config,
    apiServer: { ...config.apiServer, externalEndpoint: first },
  };
}

/**
 * The configuration without what hosts mode refuses (pod and Service settings, images) and with a stand-in
 * endpoint when none can be derived, so that the remaining checks still run after a refusal.
 */
function withoutPodSettings(config: ControlPlaneConfig): ControlPlaneConfig {
  const components = Object.fromEntries(
    Object.entries(isPlainMap(config.components) ? config.components : {}).map(([key, c]) => [
      key,
      Object.fromEntries(
        Object.entries(isPlainMap(c) ? c : {}).filter(
          ([f]) => !POD_ONLY_FIELDS.includes(f as keyof ComponentConfig),
        ),
      ),
    ]),
  );
  const apiServer = Object.fromEntries(
    Object.entries(isPlainMap(config.apiServer) ? config.apiServer : {}).filter(
      ([f]) => !(SERVICE_ONLY_FIELDS as readonly string[]).includes(f),
    ),
  );
  return {
    ...config,
    images: undefined,
    components,
    apiServer: { externalEndpoint: "unset.invalid", ...apiServer },
  };
}

/** Where a control plane's processes run. */
export const CONTROL_PLANE_MODES = ["containerized", "hosts"] as const;
export type ControlPlaneMode = (typeof CONTROL_PLANE_MODES)[number];

/** A control plane's configuration resolved for its mode. */
export interface ResolvedControlPlaneMode {
  readonly mode: ControlPlaneMode;
  readonly settings: ControlPlaneSettings;
  /** Present in hosts mode. */
  readonly hosts?: ControlPlaneHostsSettings;
}

/**
 * Mode selection, validation and defaults of a control plane in one step (nothing is registered when
 * it throws): containerized configurations go through as they are; hosts mode first adapts the
 * configuration ({@link hostsModeControlPlaneConfig}), then resolves the hosts section.
 */
export function resolveControlPlaneMode(
  name: string,
  config: ControlPlaneConfig & { readonly mode?: ControlPlaneMode; readonly hosts?: ControlPlaneHostsConfig },
  etcdEndpoints: readonly string[],
): ResolvedControlPlaneMode {
  const mode = config.mode ?? CONTROL_PLANE_DEFAULTS.mode;
  check(
    CONTROL_PLANE_MODES.includes(mode),
    "mode",
    `unknown mode ${show(mode)}`,
    CONTROL_PLANE_MODES.join(", "),
  );
  check(
    mode === "hosts" || config.hosts === undefined,
    "hosts",
    'only applies to mode "hosts"',
    'mode: "hosts"',
  );
  // the hosts-mode refusals, the general checks and the hosts section are independent: report all
  const errors = new ErrorCollector();
  const adapted =
    mode === "hosts" ? errors.attempt(() => hostsModeControlPlaneConfig(config, config.hosts)) : config;
  // after a refusal, go on with the configuration as hosts mode would read it, to find the rest
  const base = adapted ?? withoutPodSettings(config);
  const valid =
    errors.attempt(() => {
      validateControlPlaneConfig(base);
      return true;
    }) === true;
  const settings = valid
    ? errors.attempt(() => resolveControlPlaneSettings(name, base, { endpoints: etcdEndpoints }))
    : undefined;
  const hosts =
    mode === "hosts" && settings && typeof config.hosts === "object" && config.hosts !== null
      ? errors.attempt(() => resolveControlPlaneHostsSettings(config.hosts!, settings))
      : undefined;
  errors.throwIfAny();
  return { mode, settings: settings!, hosts };
}
