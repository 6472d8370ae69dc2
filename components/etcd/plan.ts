import * as pulumi from "@pulumi/pulumi";
import { EtcdHostsSettings } from "../../lib/etcd/hosts/settings";
import { resolveEtcdHostsSettings } from "../../lib/etcd/hosts/resolve";
import { EtcdInClusterSettings } from "../../lib/etcd/settings";
import { resolveEtcdInClusterSettings } from "../../lib/etcd/resolve";
import { validatePkiConfig } from "../../lib/pki/config-check";
import { ConfigError, ErrorCollector, check, show } from "../../lib/validation/errors";
import { requireKubernetesProvider } from "../providers";
import { ETCD_MODES, EtcdClusterArgs, EtcdMode, EtcdPkiConfig } from "./args";
import { EtcdExternalConfig, validateExternalEtcd } from "./external";

/** What an etcd cluster is built from, known before it registers anything. */
export interface EtcdPlan {
  readonly mode: EtcdMode;
  readonly external?: EtcdExternalConfig;
  readonly hosts?: EtcdHostsSettings;
  readonly inCluster?: EtcdInClusterSettings;
  /** `inCluster.createNamespace`. */
  readonly createNamespace: boolean;
  /** The host cluster (in-cluster mode). */
  readonly provider?: pulumi.ProviderResource;
  /** `pki`, `{}` when not given (no certificates of its own in external mode). */
  readonly pki: EtcdPkiConfig;
  /** `protect`, when given (else the component's options decide). */
  readonly protect?: boolean;
}

/** The settings sections of each mode; a section of another mode would be silently ignored. */
const SECTION_OF_MODE: Readonly<Record<EtcdMode, "inCluster" | "hosts" | "external">> = {
  inCluster: "inCluster",
  hosts: "hosts",
  external: "external",
};

/**
 * Defaults and validation of an EtcdCluster, run before the component registers itself: the mode and
 * its section, the host-cluster provider (in-cluster) and the PKI, every problem reported together.
 */
export function planEtcd(
  name: string,
  args: EtcdClusterArgs,
  opts: pulumi.ComponentResourceOptions,
): EtcdPlan {
  const mode = args.mode ?? "inCluster";
  check(ETCD_MODES.includes(mode), "mode", `unknown etcd mode ${show(mode)}`, ETCD_MODES.join(", "));
  const errors = new ErrorCollector();
  for (const other of ETCD_MODES) {
    if (other !== mode && args[SECTION_OF_MODE[other]] !== undefined) {
      errors.add(
        new ConfigError(other, `only applies to mode ${show(other)}`, `mode: ${show(other)}, or remove it`),
      );
    }
  }
  let plan: Omit<EtcdPlan, "pki" | "protect"> | undefined;
  if (mode === "external") {
    plan = errors.attempt(() => ({
      mode,
      external: validateExternalEtcd(args.external),
      createNamespace: false,
    }));
    errors.attempt(() =>
      check(args.pki === undefined, "pki", "does not apply to an external etcd (it has its own)"),
    );
  } else if (mode === "hosts") {
    plan = errors.attempt(() => {
      check(args.hosts !== undefined, "hosts", 'is required when mode is "hosts"');
      return { mode, hosts: resolveEtcdHostsSettings(name, args.hosts, "hosts"), createNamespace: false };
    });
  } else {
    const provider = errors.attempt(() => requireKubernetesProvider(opts, "EtcdCluster (inCluster mode)"));
    plan = errors.attempt(() => {
      const { createNamespace = true, ...inCluster } = args.inCluster ?? {};
      check(
        typeof createNamespace === "boolean",
        "inCluster.createNamespace",
        `${show(createNamespace)} is not a boolean`,
      );
      const settings = resolveEtcdInClusterSettings(inCluster, "inCluster");
      return { mode, inCluster: settings, createNamespace, provider };
    });
  }
  if (mode !== "external") {
    const pki = args.pki ?? {};
    errors.attempt(() => validatePkiConfig("pki", pki, { ca: pki.ca }, !pki.ca));
  }
  if (args.protect !== undefined) {
    errors.attempt(() =>
      check(
        typeof args.protect === "boolean",
        "protect",
        `${show(args.protect)} is not a boolean`,
        "true, false",
      ),
    );
  }
  errors.throwIfAny(`EtcdCluster ${show(name)}`);
  return { ...plan!, pki: args.pki ?? {}, protect: args.protect };
}
