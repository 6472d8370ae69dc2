/**
 * The config-driven stack program as a library, published as `pulumi-karmada/stack`: read the `karmada:*`
 * stack config, check it, build the estate, return its stack outputs. The repository's `stacks/index.ts`
 * and the `pulumi new` template (templates/karmada-estate) both run it, so an adopting project holds only
 * its stack files and a few lines of program.
 *
 * Importing this module registers nothing: resources are created only when a function below is called
 * inside a Pulumi program.
 * @module pulumi-karmada/stack
 */
import * as pulumi from "@pulumi/pulumi";
import { ConfigError, ErrorCollector } from "../lib/validation/errors";
import {
  PlainStackSecrets,
  SECRET_STACK_KEYS,
  STACK_CONFIG_KEYS,
  STACK_CONFIG_NAMESPACE,
  STACK_SETTINGS,
  StackConfig,
  parseStackConfig,
  validateStackSecrets,
} from "./config";
import { settingValue, stackSchemaErrors } from "./configSchema";
import { Estate, buildEstate } from "./estate";

export { STACK_CONFIG_NAMESPACE, buildEstate, parseStackConfig, validateStackSecrets };
export type { Estate, PlainStackSecrets, StackConfig };

/**
 * Reads the stack's `karmada:*` settings and checks them before anything registers: unknown keys at any
 * depth, wrong types and malformed secrets (SSH key, member kubeconfigs) are `ConfigError`s naming the key. Secrets stay
 * secret Outputs in the result.
 */
export function readStackConfig(): StackConfig {
  const cfg = new pulumi.Config(STACK_CONFIG_NAMESPACE);
  const read = (key: keyof StackConfig): unknown => {
    const { value, secret } = STACK_SETTINGS[key];
    if (value === "text") return secret ? cfg.getSecret(key) : cfg.get(key);
    return secret ? cfg.getSecretObject(key) : cfg.getObject(key);
  };
  const allKeys = Object.keys(pulumi.runtime.allConfig());
  checkStackSettings(allKeys);
  // every karmada:* key the stack sets, so that parseStackConfig names a misspelt one instead of ignoring it
  const given = allKeys
    .filter((key) => key.startsWith(`${STACK_CONFIG_NAMESPACE}:`))
    .map((key) => [key.slice(STACK_CONFIG_NAMESPACE.length + 1), undefined]);
  const config = parseStackConfig({
    ...Object.fromEntries(given),
    ...Object.fromEntries(
      STACK_CONFIG_KEYS.map((key) => [key, read(key)]).filter(([, value]) => value !== undefined),
    ),
  });
  // secrets read in plain text only to be checked now; everything else gets them as secret Outputs
  const plain: PlainStackSecrets = Object.fromEntries(
    SECRET_STACK_KEYS.map((key) => [key, pulumi.runtime.getConfig(`${STACK_CONFIG_NAMESPACE}:${key}`)]),
  );
  validateStackSecrets(plain, config);
  return config;
}

/**
 * Checks every setting's config text against the stack-file schema (a misspelt key or wrong type at any
 * depth is a ConfigError naming the field; messages never show values, secrets included) and refuses a
 * stack setting filed outside the `karmada` namespace (a key written without it lands in the project's).
 */
function checkStackSettings(allKeys: readonly string[]): void {
  const errors = new ErrorCollector();
  const project = pulumi.getProject();
  for (const key of allKeys) {
    const [namespace, name] = key.includes(":") ? key.split(/:(.*)/s) : ["", key];
    if (namespace !== STACK_CONFIG_NAMESPACE && (namespace === "" || namespace === project)) {
      if ((STACK_CONFIG_KEYS as readonly string[]).includes(name)) {
        errors.add(
          new ConfigError(
            key,
            `is a stack setting outside the ${STACK_CONFIG_NAMESPACE} namespace, which the program does not read`,
            `${STACK_CONFIG_NAMESPACE}:${name}`,
          ),
        );
      }
    }
  }
  const settings = Object.fromEntries(
    allKeys
      .filter((key) => key.startsWith(`${STACK_CONFIG_NAMESPACE}:`))
      .map((key) => key.slice(STACK_CONFIG_NAMESPACE.length + 1) as keyof StackConfig)
      .filter((key) => STACK_CONFIG_KEYS.includes(key))
      .map((key) => [
        key,
        settingValue(
          key,
          pulumi.runtime.getConfig(`${STACK_CONFIG_NAMESPACE}:${key}`) ?? "",
          SECRET_STACK_KEYS.includes(key),
        ),
      ]),
  );
  for (const error of stackSchemaErrors(settings)) errors.add(error);
  errors.throwIfAny();
}

/** What `pulumi stack output` shows for an estate. */
export interface EstateOutputs {
  /** `https://<host>:<port>` of karmada-apiserver. */
  readonly apiEndpoint: string;
  /** Admin kubeconfig of karmada-apiserver (secret). */
  readonly adminKubeconfig: pulumi.Output<string>;
  /** PEM of the Karmada CA. */
  readonly caCertPem: pulumi.Output<string>;
  /** Expiry (RFC 3339) of each control-plane certificate, by certificate name. */
  readonly certificateExpiry: pulumi.Output<Record<string, string>>;
  /** etcd client URLs the control plane uses. */
  readonly etcdClientUrls: string[];
  /** Registered member clusters and their sync mode. */
  readonly memberClusters: {
    /** Name of the Cluster object. */
    name: string;
    /** `Push` or `Pull`. */
    mode: string;
  }[];
}

/** The stack outputs of `estate`. */
export function estateOutputs(estate: Estate): EstateOutputs {
  return {
    apiEndpoint: estate.controlPlane.apiEndpoint,
    adminKubeconfig: pulumi.secret(estate.controlPlane.adminKubeconfig),
    caCertPem: estate.controlPlane.caCertPem,
    certificateExpiry: estate.controlPlane.certificateExpiry,
    etcdClientUrls: estate.etcd.clientUrls,
    memberClusters: estate.members.map((m) => ({ name: m.clusterName, mode: m.mode })),
  };
}

/**
 * The whole stack program: the estate the `karmada:*` settings describe, as stack outputs. Use it as a
 * program's exports (`export = estateStack();`); to add resources of your own, call
 * `buildEstate(readStackConfig())` and `estateOutputs` instead.
 */
export function estateStack(): EstateOutputs {
  return estateOutputs(buildEstate(readStackConfig()));
}
