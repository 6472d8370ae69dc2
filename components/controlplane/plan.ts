import * as pulumi from "@pulumi/pulumi";
import { ResolvedControlPlaneMode, resolveControlPlaneMode } from "../../lib/controlplane/hosts";
import { validateCrdSource } from "../../lib/crds";
import { validatePkiConfig } from "../../lib/pki/config-check";
import { ConfigError, ErrorCollector, check, show } from "../../lib/validation/errors";
import { EtcdCluster } from "../etcdCluster";
import { requireComponent, requireKubernetesProvider } from "../providers";
import type { ControlPlanePkiConfig, KarmadaControlPlaneArgs } from "./args";
import { CONTROL_PLANE_DEFAULTS } from "../../lib/controlplane/defaults";
import type { CrdSource } from "../../lib/crds";

/**
 * What a control plane is built from, known before it registers anything: every argument resolved, so
 * the component never reads its raw args after planning.
 */
export interface ControlPlanePlan extends ResolvedControlPlaneMode {
  readonly etcd: EtcdCluster;
  /** The host cluster (containerized mode). */
  readonly hostProvider?: pulumi.ProviderResource;
  /** `pki`, `{}` when not given. */
  readonly pki: ControlPlanePkiConfig;
  /** `crds`, the release's bundle by default. */
  readonly crds: CrdSource;
  readonly pullModeBootstrap: boolean;
  readonly createNamespace: boolean;
  /** `protect`, when given (else the component's options decide). */
  readonly protect?: boolean;
}

/**
 * Defaults and validation of a control plane, run before the component registers itself: every
 * problem with the arguments, the options (host-cluster provider), the etcd reference, the PKI and the
 * CRD source is collected and thrown together as a ConfigErrors naming each field.
 */
export function planControlPlane(
  name: string,
  args: KarmadaControlPlaneArgs,
  opts: pulumi.ComponentResourceOptions,
): ControlPlanePlan {
  const errors = new ErrorCollector();
  const subject = `KarmadaControlPlane ${show(name)}`;
  if (typeof args !== "object" || args === null)
    throw new ConfigError("args", `${show(args)} is not an object`);
  const etcd = errors.attempt(() => requireComponent("etcd", args.etcd, EtcdCluster, "EtcdCluster"));
  const resolved = errors.attempt(() => resolveControlPlaneMode(name, args, etcd?.clientUrls ?? []));
  const hostProvider =
    (args.mode ?? CONTROL_PLANE_DEFAULTS.mode) === "containerized"
      ? errors.attempt(() => requireKubernetesProvider(opts, "KarmadaControlPlane"))
      : undefined;
  const pki = args.pki ?? {};
  const crds: CrdSource = args.crds ?? CONTROL_PLANE_DEFAULTS.crds;
  errors.attempt(() =>
    validatePkiConfig(
      "pki",
      pki,
      { karmadaCa: pki.karmadaCa, frontProxyCa: pki.frontProxyCa },
      !pki.karmadaCa || !pki.frontProxyCa,
    ),
  );
  if (resolved) {
    errors.attempt(() => validateCrdSource(crds, resolved.settings.release, "crds"));
  }
  for (const key of ["pullModeBootstrap", "createNamespace", "protect"] as const) {
    if (args[key] !== undefined) {
      errors.attempt(() =>
        check(typeof args[key] === "boolean", key, `${show(args[key])} is not a boolean`, "true, false"),
      );
    }
  }
  errors.throwIfAny(subject);
  return {
    ...resolved!,
    etcd: etcd!,
    hostProvider,
    pki,
    crds,
    pullModeBootstrap: args.pullModeBootstrap ?? CONTROL_PLANE_DEFAULTS.pullModeBootstrap,
    createNamespace: args.createNamespace ?? CONTROL_PLANE_DEFAULTS.createNamespace,
    protect: args.protect,
  };
}
