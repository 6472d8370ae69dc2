import { KarmadaComponent } from "../catalog/components";
import { ControlPlaneSettings } from "../controlplane/settings";
import type { KubeObject } from "../kube/object";
import { metricsAdapterApiObjects, searchApiObjects } from "../manifests/karmada/apiservices";
import { deschedulerManifests, metricsAdapterManifests, searchManifests } from "../manifests/workloads";
import { CertSpec, controlPlaneCertificates } from "../pki/certificates";
import { COMPONENT_PKI_FILES, PkiFile } from "../pki/layout";
import { ConfigError } from "../validation/errors";
import { BuiltinOverrides, CONTROL_PLANE_BUILTINS, ControlPlaneBuiltin } from "./config";

/**
 * Flag dropped from the aggregated servers: without it they read the front-proxy CA from
 * `kube-system/extension-apiserver-authentication` in karmada-apiserver (delegated authentication),
 * so an addon does not need the control plane's front-proxy CA file.
 */
const DELEGATED_FLAG = "--requestheader-client-ca-file=";

/**
 * The control plane's settings with one built-in enabled and the overrides applied — the manifests,
 * flags and certificates of the built-in are then exactly those the control plane would produce with
 * `components.<kind>.enabled`. Refuses a built-in the control plane already runs.
 */
export function builtinSettings(
  settings: ControlPlaneSettings,
  kind: ControlPlaneBuiltin,
  overrides: BuiltinOverrides = {},
): ControlPlaneSettings {
  const component = CONTROL_PLANE_BUILTINS[kind];
  const own = settings.components[component];
  if (own.enabled) {
    throw new ConfigError(
      "kind",
      `${component} already runs: the control plane enables it (components.${kind}.enabled)`,
      "an addon the control plane does not run",
    );
  }
  return {
    ...settings,
    components: {
      ...settings.components,
      [component]: {
        ...own,
        enabled: true,
        replicas: overrides.replicas ?? own.replicas,
        extraArgs: { ...own.extraArgs, ...(overrides.extraArgs ?? {}) },
      },
    },
  };
}

const WORKLOADS: Record<ControlPlaneBuiltin, (s: ControlPlaneSettings) => KubeObject[]> = {
  descheduler: deschedulerManifests,
  search: searchManifests,
  metricsAdapter: metricsAdapterManifests,
};

/** Host-cluster Deployment/Service/PDB of a built-in (the control plane's manifests, delegated front proxy). */
export function builtinWorkloads(settings: ControlPlaneSettings, kind: ControlPlaneBuiltin): KubeObject[] {
  return WORKLOADS[kind](settings).map((obj) => {
    if (obj.kind !== "Deployment") return obj;
    const copy = JSON.parse(JSON.stringify(obj));
    for (const c of copy.spec.template.spec.containers) {
      c.args = (c.args ?? []).filter((a: string) => !a.startsWith(DELEGATED_FLAG));
    }
    return copy;
  });
}

/** APIService objects (and their backend Services) inside Karmada: search and metrics adapter only. */
export function builtinApiObjects(settings: ControlPlaneSettings, kind: ControlPlaneBuiltin): KubeObject[] {
  if (kind === "search") return searchApiObjects(settings);
  if (kind === "metricsAdapter") return metricsAdapterApiObjects(settings);
  return [];
}

/** Certificates of a built-in: its client identity and, for aggregated servers, its serving cert. */
export function builtinCertificates(settings: ControlPlaneSettings, kind: ControlPlaneBuiltin): CertSpec[] {
  const component = CONTROL_PLANE_BUILTINS[kind];
  const serving: Record<ControlPlaneBuiltin, string | undefined> = {
    descheduler: undefined,
    search: "search",
    metricsAdapter: "metrics-adapter",
  };
  const ids = [`${component}-client`, serving[kind]];
  return controlPlaneCertificates(settings).filter((spec) => ids.includes(spec.id));
}

/** Files of a built-in's cert Secret: the control plane's list, less the front-proxy CA (delegated). */
export function builtinPkiFiles(component: KarmadaComponent): PkiFile[] {
  return COMPONENT_PKI_FILES[component].filter((f) => f !== "front-proxy-ca.crt");
}
