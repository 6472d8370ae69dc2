import { RELEASES, findRelease } from "../catalog/releases";
import { validateCidr } from "../validation/cidr";
import { validateDns1123Label, validateDns1123Subdomain, validateDnsSan } from "../validation/dns";
import { validateUnique } from "../validation/duplicates";
import { validateHost, validateHostPort } from "../validation/endpoints";
import { check, ErrorCollector, show } from "../validation/errors";
import { validateFeatureGates } from "../validation/feature-gates";
import { isIp, validateIpAddress } from "../validation/ip";
import {
  entryField,
  isQualifiedName,
  keyField,
  validateAnnotations,
  validateLabels,
} from "../validation/labels";
import { IMAGE_NAMES } from "../catalog/components";
import { validateImageReference } from "../validation/image";
import { hasOwnKey, isPlainMap, requireMap } from "../validation/maps";
import { validatePort, validateReplicas } from "../validation/numbers";
import { validateResources } from "../validation/quantity";
import { checkNotOwned } from "../validation/owned-flags";
import { COMPONENT_KEYS, ComponentConfig, ComponentKey, ControlPlaneConfig } from "./config";
import { CONTROL_PLANE_OWNED_FLAGS } from "./flags-owned";
import { ApiServerServiceType } from "./settings";

// the distribution spec's tag and repository grammar
const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const IMAGE_REPOSITORY =
  /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;

const SERVICE_TYPES: readonly ApiServerServiceType[] = ["ClusterIP", "NodePort", "LoadBalancer"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const OPTIONAL_KEYS = ["metricsAdapter", "descheduler", "search"];

function validateComponent(field: string, key: string, c: ComponentConfig): void {
  check(
    typeof c === "object" && c !== null && !Array.isArray(c),
    field,
    `${show(c)} is not an object`,
    "{ replicas, image, extraArgs, … }",
  );
  const errors = new ErrorCollector();
  if (c.enabled !== undefined) {
    errors.attempt(() =>
      check(
        OPTIONAL_KEYS.includes(key) || c.enabled === true,
        `${field}.enabled`,
        `${key} is a core component and cannot be disabled`,
        `enabled only on ${OPTIONAL_KEYS.join(", ")}`,
      ),
    );
  }
  if (c.replicas !== undefined) errors.attempt(() => validateReplicas(`${field}.replicas`, c.replicas!));
  if (c.image !== undefined) errors.attempt(() => validateImageReference(`${field}.image`, c.image));
  if (c.imagePullPolicy !== undefined) {
    errors.attempt(() =>
      check(
        PULL_POLICIES.includes(c.imagePullPolicy!),
        `${field}.imagePullPolicy`,
        `unknown policy ${show(c.imagePullPolicy)}`,
        PULL_POLICIES.join(", "),
      ),
    );
  }
  if (c.resources) errors.attempt(() => validateResources(`${field}.resources`, c.resources!));
  if (c.labels) errors.attempt(() => validateLabels(`${field}.labels`, c.labels!));
  if (c.annotations) errors.attempt(() => validateAnnotations(`${field}.annotations`, c.annotations!));
  if (c.featureGates) errors.attempt(() => validateFeatureGates(`${field}.featureGates`, c.featureGates!));
  if (c.priorityClassName !== undefined)
    errors.attempt(() => validateDns1123Subdomain(`${field}.priorityClassName`, c.priorityClassName!));
  errors.attempt(() => validateExtraArgs(`${field}.extraArgs`, c.extraArgs ?? {}));
  errors.attempt(() =>
    checkNotOwned(`${field}.extraArgs`, c.extraArgs ?? {}, {
      name: "the control plane",
      flags: CONTROL_PLANE_OWNED_FLAGS[COMPONENT_KEYS[key as ComponentKey]],
    }),
  );
  errors.throwIfAny();
}

/** `extraArgs`: a map of flag names (no dashes) to string values. */
function validateExtraArgs(field: string, extraArgs: unknown): void {
  check(
    typeof extraArgs === "object" && extraArgs !== null && !Array.isArray(extraArgs),
    field,
    `${show(extraArgs)} is not a map of flags`,
    '{ "flag-name": "value" }',
  );
  const errors = new ErrorCollector();
  for (const [name, value] of Object.entries(extraArgs)) {
    errors.attempt(() => {
      check(
        /^[a-z0-9][a-z0-9-.]*$/.test(name),
        entryField(field, name),
        `${show(name)} is not a flag name`,
        "the flag name without leading dashes, e.g. v or kube-api-qps",
      );
      check(typeof value === "string", entryField(field, name), `${show(value)} is not a string`, "a string");
    });
  }
  errors.throwIfAny();
}

/**
 * Validates a control plane's configuration before anything is created. Each problem is a ConfigError
 * naming the field (`components.scheduler.replicas`, `apiServer.extraSans[2]` …) and what is allowed.
 */
export function validateControlPlaneConfig(config: ControlPlaneConfig): void {
  const errors = new ErrorCollector();
  const run = (fn: () => unknown) => errors.attempt(fn);
  if (config.karmadaVersion !== undefined) run(() => findRelease(config.karmadaVersion!, "karmadaVersion"));
  run(() => check(RELEASES.length > 0, "karmadaVersion", "the catalog is empty"));
  if (config.namespace !== undefined) run(() => validateDns1123Label("namespace", config.namespace!));
  if (config.clusterDomain !== undefined)
    run(() => validateDns1123Subdomain("clusterDomain", config.clusterDomain!));
  if (config.featureGates !== undefined)
    run(() => validateFeatureGates("featureGates", config.featureGates!));
  if (config.images?.registry !== undefined) {
    run(() =>
      check(
        typeof config.images!.registry === "string" &&
          /^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*\/?$/.test(config.images!.registry),
        "images.registry",
        `${show(config.images!.registry)} is not a registry`,
        "host[:port][/path], e.g. registry.local:5000/karmada",
      ),
    );
  }
  for (const kind of ["repositories", "tags"] as const) {
    const overrides = config.images?.[kind];
    if (overrides === undefined) continue;
    run(() => requireMap(`images.${kind}`, overrides, '{ "karmada-scheduler": "…" }'));
    for (const [image, value] of Object.entries(isPlainMap(overrides) ? overrides : {})) {
      run(() => {
        const field = entryField(`images.${kind}`, image);
        check(
          (IMAGE_NAMES as readonly string[]).includes(image),
          field,
          `unknown image ${show(image)}`,
          IMAGE_NAMES.join(", "),
        );
        check(
          typeof value === "string" && (kind === "tags" ? IMAGE_TAG : IMAGE_REPOSITORY).test(value),
          field,
          `${show(value)} is not an image ${kind === "tags" ? "tag" : "repository"}`,
          kind === "tags" ? "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}" : "host[:port]/path, lower case",
        );
      });
    }
  }
  for (const section of ["components", "apiServer", "images"] as const) {
    if (config[section] !== undefined) run(() => requireMap(section, config[section], "a map of settings"));
  }
  const components = isPlainMap(config.components) ? config.components : {};
  for (const key of Object.keys(components)) {
    run(() => {
      check(
        hasOwnKey(COMPONENT_KEYS, key),
        keyField("components", key),
        `unknown component ${show(key)}`,
        Object.keys(COMPONENT_KEYS).join(", "),
      );
      validateComponent(keyField("components", key), key, components[key as keyof typeof COMPONENT_KEYS]!);
    });
  }
  const api = isPlainMap(config.apiServer)
    ? (config.apiServer as NonNullable<ControlPlaneConfig["apiServer"]>)
    : {};
  if (api.serviceType !== undefined) {
    run(() =>
      check(
        SERVICE_TYPES.includes(api.serviceType!),
        "apiServer.serviceType",
        `unknown type ${show(api.serviceType)}`,
        SERVICE_TYPES.join(", "),
      ),
    );
  }
  if (api.nodePort !== undefined) {
    run(() => {
      check(api.serviceType === "NodePort", "apiServer.nodePort", "is only valid with serviceType NodePort");
      validatePort("apiServer.nodePort", api.nodePort!);
    });
  }
  if (api.loadBalancerClass !== undefined) {
    run(() => {
      check(
        api.serviceType === "LoadBalancer",
        "apiServer.loadBalancerClass",
        `is only valid with serviceType LoadBalancer, not ${show(api.serviceType ?? "ClusterIP")}`,
        'serviceType: "LoadBalancer"',
      );
      check(
        typeof api.loadBalancerClass === "string" && isQualifiedName(api.loadBalancerClass),
        "apiServer.loadBalancerClass",
        `${show(api.loadBalancerClass)} is not a load balancer class`,
        "[prefix/]name, e.g. service.k8s.aws/nlb",
      );
    });
  }
  if (api.port !== undefined) run(() => validatePort("apiServer.port", api.port!));
  if (api.serviceSubnet !== undefined) run(() => validateCidr("apiServer.serviceSubnet", api.serviceSubnet!));
  if (api.externalEndpoint !== undefined) run(() => validateExternalEndpoint(api.externalEndpoint!));
  run(() => {
    check(Array.isArray(api.extraSans ?? []), "apiServer.extraSans", `${show(api.extraSans)} is not a list`);
    (api.extraSans ?? []).forEach((san, i) =>
      run(() =>
        typeof san !== "string"
          ? check(false, `apiServer.extraSans[${i}]`, `${show(san)} is not a DNS name or IP address`)
          : isIp(san)
            ? validateIpAddress(`apiServer.extraSans[${i}]`, san)
            : validateDnsSan(`apiServer.extraSans[${i}]`, san),
      ),
    );
    validateUnique("apiServer.extraSans", api.extraSans ?? []);
  });
  if (api.serviceAnnotations)
    run(() => validateAnnotations("apiServer.serviceAnnotations", api.serviceAnnotations!));
  if (config.etcdKeyPrefix !== undefined) {
    run(() =>
      check(
        typeof config.etcdKeyPrefix === "string" && /^\/[A-Za-z0-9/_.-]*$/.test(config.etcdKeyPrefix),
        "etcdKeyPrefix",
        `${show(config.etcdKeyPrefix)} is not a key prefix`,
        "an absolute path such as /registry",
      ),
    );
  }
  errors.throwIfAny();
}

/** `host[:port]`; a bare host (no port) means the apiserver port. */
function validateExternalEndpoint(endpoint: string): void {
  check(
    typeof endpoint === "string",
    "apiServer.externalEndpoint",
    `${show(endpoint)} is not a string`,
    "host[:port]",
  );
  if (/^\[.*\]:\d+$|^[^:]+:\d+$/.test(endpoint)) {
    validateHostPort("apiServer.externalEndpoint", endpoint);
  } else {
    validateHost("apiServer.externalEndpoint", endpoint.replace(/^\[(.*)\]$/, "$1"));
  }
}
