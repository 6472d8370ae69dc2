/**
 * Stack config for e2e stacks: structured values keep their JSON types (set with `config set-all --json`
 * as object values), secrets are encrypted by the CLI and can sit at a path inside an object.
 */
import { Stack } from "@pulumi/pulumi/automation";
import type { StackConfig } from "../../stacks/config";

/** The `karmada:*` settings of the stacks program, as plain JSON (the host kubeconfig is set as a secret). */
export type KarmadaConfig = Omit<StackConfig, "hostKubeconfig"> & {
  /** Kubeconfig contents; stored as a secret. @default - unset (the provider's ambient kubeconfig) */
  readonly hostKubeconfig?: string;
};

/** The `pulumi config --json` entry for one plain value. */
function configEntry(value: unknown): { value: string; objectValue?: unknown; secret: false } {
  if (typeof value === "object" && value !== null)
    return { value: JSON.stringify(value), objectValue: value, secret: false };
  return { value: String(value), secret: false };
}

/**
 * Sets fully qualified keys (`karmada:etcd`) to plain values; objects and arrays are stored as YAML
 * objects, so the program's `getObject` sees numbers and booleans as such. A key set again is replaced
 * whole (secrets set at paths inside it must be set again).
 */
export async function setStructuredConfig(
  stack: Stack,
  values: Readonly<Record<string, unknown>>,
): Promise<void> {
  const entries = Object.entries(values).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return;
  const json = Object.fromEntries(entries.map(([key, value]) => [key, configEntry(value)]));
  await stack.workspace.setAllConfigJson(stack.name, JSON.stringify(json));
}

/** Sets a secret at a config path, e.g. `karmada:controlPlane.pki.karmadaCa.keyPem`. */
export async function setSecretConfig(stack: Stack, pathKey: string, value: string): Promise<void> {
  await stack.setConfig(pathKey, { value, secret: true }, true);
}

/**
 * Replaces the stack's `karmada:*` settings with `config` (keys absent from it are removed), then sets the
 * secrets given by path relative to `karmada:` (e.g. `controlPlane.pki.karmadaCa.keyPem`).
 */
export async function setKarmadaConfig(
  stack: Stack,
  config: KarmadaConfig,
  secretPaths: Readonly<Record<string, string>> = {},
): Promise<void> {
  const keys = ["hostKubeconfig", "hostContext", "etcd", "controlPlane", "crds"] as const;
  const current = await stack.getAllConfig();
  for (const key of keys) {
    if (config[key] === undefined && `karmada:${key}` in current) await stack.removeConfig(`karmada:${key}`);
  }
  const { hostKubeconfig, ...plain } = config;
  await setStructuredConfig(
    stack,
    Object.fromEntries(Object.entries(plain).map(([k, v]) => [`karmada:${k}`, v])),
  );
  if (hostKubeconfig !== undefined)
    await stack.setConfig("karmada:hostKubeconfig", { value: hostKubeconfig, secret: true });
  for (const [pathKey, value] of Object.entries(secretPaths))
    await setSecretConfig(stack, `karmada:${pathKey}`, value);
}
