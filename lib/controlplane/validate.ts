import { RELEASES, findRelease } from "../catalog/releases";
import { validateCidr } from "../validation/cidr";
import { validateDns1123Label, validateDns1123Subdomain, validateDnsSan } from "../validation/dns";
import { validateUnique } from "../validation/duplicates";
import { validateHost, validateHostPort } from "../validation/endpoints";
import { check, show } from "../validation/errors";
import { validateFeatureGates } from "../validation/feature-gates";
import { isIp, validateIpAddress } from "../validation/ip";
import { entryField, validateAnnotations, validateLabels } from "../validation/labels";
import { validatePort, validateReplicas } from "../validation/numbers";
import { validateResources } from "../validation/quantity";
import { checkNotOwned } from "../validation/owned-flags";
import { COMPONENT_KEYS, ComponentConfig, ComponentKey, ControlPlaneConfig } from "./config";
import { CONTROL_PLANE_OWNED_FLAGS } from "./flags-owned";
import { ApiServerServiceType } from "./settings";

const SERVICE_TYPES: readonly ApiServerServiceType[] = ["ClusterIP", "NodePort", "LoadBalancer"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const OPTIONAL_KEYS = ["metricsAdapter", "descheduler", "search"];

function validateComponent(field: string, key: string, c: ComponentConfig): void {
  if (c.enabled !== undefined) {
    check(
      OPTIONAL_KEYS.includes(key) || c.enabled,
      `${field}.enabled`,
      `${key} is a core component and cannot be disabled`,
      `enabled only on ${OPTIONAL_KEYS.join(", ")}`,
    );
  }
  if (c.replicas !== undefined) validateReplicas(`${field}.replicas`, c.replicas);
  if (c.image !== undefined) {
    check(
      /^[a-z0-9][a-z0-9._\-/:]*(@sha256:[0-9a-f]{64})?$/i.test(c.image),
      `${field}.image`,
      `${show(c.image)} is not an image reference`,
      "repository[:tag][@sha256:digest]",
    );
  }
  if (c.imagePullPolicy !== undefined) {
    check(
      PULL_POLICIES.includes(c.imagePullPolicy),
      `${field}.imagePullPolicy`,
      `unknown policy ${show(c.imagePullPolicy)}`,
      PULL_POLICIES.join(", "),
    );
  }
  if (c.resources) validateResources(`${field}.resources`, c.resources);
  if (c.labels) validateLabels(`${field}.labels`, c.labels);
  if (c.annotations) validateAnnotations(`${field}.annotations`, c.annotations);
  if (c.featureGates) validateFeatureGates(`${field}.featureGates`, c.featureGates);
  if (c.priorityClassName) validateDns1123Subdomain(`${field}.priorityClassName`, c.priorityClassName);
  for (const name of Object.keys(c.extraArgs ?? {})) {
    check(
      /^[a-z0-9][a-z0-9-.]*$/.test(name),
      entryField(`${field}.extraArgs`, name),
      `${show(name)} is not a flag name`,
      "the flag name without leading dashes, e.g. v or kube-api-qps",
    );
  }
  checkNotOwned(`${field}.extraArgs`, c.extraArgs ?? {}, {
    name: "the control plane",
    flags: CONTROL_PLANE_OWNED_FLAGS[COMPONENT_KEYS[key as ComponentKey]],
  });
}

/**
 * Validates a control plane's configuration before anything is created. Each problem is a ConfigError
 * naming the field (`components.scheduler.replicas`, `apiServer.extraSans[2]` …) and what is allowed.
 */
export function validateControlPlaneConfig(config: ControlPlaneConfig): void {
  if (config.karmadaVersion !== undefined) findRelease(config.karmadaVersion, "karmadaVersion");
  check(RELEASES.length > 0, "karmadaVersion", "the catalog is empty");
  if (config.namespace !== undefined) validateDns1123Label("namespace", config.namespace);
  if (config.clusterDomain !== undefined) validateDns1123Subdomain("clusterDomain", config.clusterDomain);
  if (config.featureGates) validateFeatureGates("featureGates", config.featureGates);
  if (config.images?.registry !== undefined) {
    check(
      /^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)*\/?$/.test(config.images.registry),
      "images.registry",
      `${show(config.images.registry)} is not a registry`,
      "host[:port][/path], e.g. registry.local:5000/karmada",
    );
  }
  for (const key of Object.keys(config.components ?? {})) {
    check(
      key in COMPONENT_KEYS,
      `components.${key}`,
      `unknown component ${show(key)}`,
      Object.keys(COMPONENT_KEYS).join(", "),
    );
    validateComponent(`components.${key}`, key, config.components![key as keyof typeof COMPONENT_KEYS]!);
  }
  const api = config.apiServer ?? {};
  if (api.serviceType !== undefined) {
    check(
      SERVICE_TYPES.includes(api.serviceType),
      "apiServer.serviceType",
      `unknown type ${show(api.serviceType)}`,
      SERVICE_TYPES.join(", "),
    );
  }
  if (api.nodePort !== undefined) {
    check(api.serviceType === "NodePort", "apiServer.nodePort", "is only valid with serviceType NodePort");
    validatePort("apiServer.nodePort", api.nodePort);
  }
  if (api.port !== undefined) validatePort("apiServer.port", api.port);
  if (api.serviceSubnet !== undefined) validateCidr("apiServer.serviceSubnet", api.serviceSubnet);
  if (api.externalEndpoint !== undefined) {
    // a bare host (no port) means the apiserver port
    if (/^\[.*\]:\d+$|^[^:]+:\d+$/.test(api.externalEndpoint)) {
      validateHostPort("apiServer.externalEndpoint", api.externalEndpoint);
    } else {
      validateHost("apiServer.externalEndpoint", api.externalEndpoint.replace(/^\[(.*)\]$/, "$1"));
    }
  }
  (api.extraSans ?? []).forEach((san, i) =>
    isIp(san)
      ? validateIpAddress(`apiServer.extraSans[${i}]`, san)
      : validateDnsSan(`apiServer.extraSans[${i}]`, san),
  );
  validateUnique("apiServer.extraSans", api.extraSans ?? []);
  if (api.serviceAnnotations) validateAnnotations("apiServer.serviceAnnotations", api.serviceAnnotations);
  if (config.etcdKeyPrefix !== undefined) {
    check(
      /^\/[A-Za-z0-9/_.-]*$/.test(config.etcdKeyPrefix),
      "etcdKeyPrefix",
      `${show(config.etcdKeyPrefix)} is not a key prefix`,
      "an absolute path such as /registry",
    );
  }
}
