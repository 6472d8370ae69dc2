/**
 * A containerized estate on the e2e lab of real nodes (devkit/lab/useLab.ts): the repository's stacks
 * program (or another tree's), deployed by the real engine with the library's own PKI — its pods run on
 * the lab's host nodes, its images are pulled from the lab registry, its members are the lab's member
 * clusters. Several estates share the lab one after another, each in its own host namespace and NodePort.
 */
import { Stack } from "@pulumi/pulumi/automation";
import { adminCredentials } from "../lab/controlPlane";
import { LabEstateOptions, labEstateSettings } from "../lab/estate";
import type { Lab } from "../lab/lab";
import { clusterOf } from "../lab/plan";
import type { ApiCredentials } from "../kubeClient";
import { useLab } from "../lab/useLab";
import { KarmadaConfig, setKarmadaConfig } from "./config";
import { EngineEnv, EngineEnvOptions, createEngineEnv } from "./env";
import { stacksProgramStack } from "./workspace";

/** A configured (not deployed) estate on the lab. */
export interface LabEstate {
  readonly lab: Lab;
  readonly engine: EngineEnv;
  readonly stack: Stack;
  /** The host cluster's admin credentials. */
  readonly host: ApiCredentials;
  /** Admin credentials of a lab cluster by name (`member1` …). */
  cluster(name: string): ApiCredentials;
  /** The control plane's namespace on the host cluster. */
  readonly namespace: string;
  /** The Karmada API server's URL the estate hands out (a NodePort of the host nodes). */
  readonly karmadaApiUrl: string;
  /** The stack config with `overrides` merged over the estate's. */
  config(overrides?: LabEstateOverrides): KarmadaConfig;
  /** Replaces the stack's `karmada:*` config with {@link config}(overrides), the secrets set again. */
  configure(overrides?: LabEstateOverrides): Promise<void>;
  /** Removes the engine's directory (the lab keeps running for the next suite). */
  cleanup(): void;
}

/** Settings merged over the estate's (deeply: objects merge, arrays and scalars replace). */
export interface LabEstateOverrides {
  /** Over `karmada:controlPlane`. */
  readonly controlPlane?: Record<string, unknown>;
  /** Over `karmada:etcd`. */
  readonly etcd?: Record<string, unknown>;
  /** Over the `karmada:members` entry of each named cluster (`member1`, `member2`). */
  readonly members?: Readonly<Record<string, Record<string, unknown>>>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep merge of plain objects (arrays and scalars of `over` replace). */
export function mergeConfig(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] =
      isPlainObject(v) && isPlainObject(out[k]) ? mergeConfig(out[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

/**
 * Creates the stack `stackName` of the stacks program of the tree at `programRoot` (default: this
 * repository) for an estate on the lab, configured and not deployed; `engineOptions` choose the state
 * backend (default: a file backend of its own).
 */
export async function labEstate(
  stackName: string,
  options: LabEstateOptions = {},
  programRoot?: string,
  engineOptions: EngineEnvOptions = {},
): Promise<LabEstate> {
  const lab = await useLab();
  const engine = createEngineEnv(`pk-${stackName}-`, engineOptions);
  const settings = labEstateSettings(lab, options);
  const stack = await stacksProgramStack(engine, stackName, programRoot);
  const config = (overrides: LabEstateOverrides = {}): KarmadaConfig => {
    const members = settings.config.members ?? [];
    for (const name of Object.keys(overrides.members ?? {})) {
      if (!members.some((m) => m.clusterName === name)) throw new Error(`the estate has no member ${name}`);
    }
    const over = (base: unknown, with_: Record<string, unknown> | undefined) =>
      mergeConfig(base as Record<string, unknown>, with_ ?? {});
    return {
      ...settings.config,
      etcd: over(settings.config.etcd, overrides.etcd) as KarmadaConfig["etcd"],
      controlPlane: over(
        settings.config.controlPlane,
        overrides.controlPlane,
      ) as KarmadaConfig["controlPlane"],
      members: members.map(
        (m) => over(m, overrides.members?.[m.clusterName]) as unknown as (typeof members)[number],
      ),
    };
  };
  const configure = async (overrides?: LabEstateOverrides) => {
    const { hostKubeconfig, ...memberSecrets } = settings.secrets;
    await setKarmadaConfig(stack, { ...config(overrides), hostKubeconfig }, memberSecrets);
  };
  await configure();
  return {
    lab,
    engine,
    stack,
    host: adminCredentials(clusterOf(lab.plan, "host")),
    cluster: (name) => adminCredentials(clusterOf(lab.plan, name)),
    namespace: options.namespace ?? "karmada-system",
    karmadaApiUrl: settings.karmadaApiUrl,
    config,
    configure,
    cleanup: () => engine.cleanup(),
  };
}
