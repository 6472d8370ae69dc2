import * as fs from "fs";
import * as os from "os";
import * as pulumi from "@pulumi/pulumi";
import { ControlPlaneConfig } from "../lib/controlplane/config";
import { CrdSource } from "../lib/crds";
import { EtcdClusterArgs } from "../components/etcdCluster";
import { ControlPlanePkiConfig, KarmadaControlPlaneArgs } from "../components/karmadaControlPlane";
import { AddonConfig } from "../lib/addons/config";
import { MemberRegistrationConfig } from "../lib/members/config";
import { validateUnique } from "../lib/validation/duplicates";
import { ConfigError, ErrorCollector, check, show } from "../lib/validation/errors";
import { validateSshPrivateKey } from "../lib/hosts/ssh-key";
import { validateKubeconfigText } from "../lib/kubeconfig/check";

/**
 * Shape of a stack's configuration (namespace `karmada`, see Pulumi.<env>.yaml). Each key maps onto
 * one component's args, so a setting flows: stack config → component args → resolved settings →
 * manifest / certificate / host script. The doc comments here and in the types below are what editors
 * show for each key: schemas/stack-config.schema.json is generated from them (`npm run schema:config`).
 */
export interface StackConfig {
  /**
   * Kubeconfig (contents or path) of the host cluster; secret
   * (`pulumi config set --secret karmada:hostKubeconfig < kubeconfig`).
   * @default - $KUBECONFIG / ~/.kube/config
   */
  readonly hostKubeconfig?: pulumi.Input<string>;
  /** Context in the host kubeconfig. @default - the current context */
  readonly hostContext?: string;
  /**
   * Karmada's etcd (EtcdCluster args): `mode` picks where it runs, and the section of that name
   * (`inCluster`, `hosts` or `external`) holds its settings.
   * @default { mode: "inCluster" } (one member, 8Gi PVC)
   */
  readonly etcd?: EtcdClusterArgs;
  /**
   * KarmadaControlPlane settings (without `etcd`, which the stack wires): version, images, API server
   * exposure, per-component settings, PKI, and `mode: hosts` with its `hosts` section.
   * @default {}
   */
  readonly controlPlane?: ControlPlaneConfig &
    Pick<KarmadaControlPlaneArgs, "mode" | "hosts"> & {
      /** @default - generated CAs, 1-year leaves renewed a third of their validity early */
      readonly pki?: ControlPlanePkiConfig;
      /** Protect every resource of the control plane from deletion. @default false */
      readonly protect?: boolean;
      /** Publish cluster-info and bootstrap RBAC for pull-mode registration. @default true */
      readonly pullModeBootstrap?: boolean;
    };
  /** Where the CRDs come from. @default { kind: "release" } */
  readonly crds?: CrdSource;
  /**
   * Member clusters to register (push or pull). Each member's kubeconfig comes from the secret config
   * key `karmada:memberKubeconfigs` (a map clusterName → kubeconfig). @default []
   */
  readonly members?: MemberRegistrationConfig[];
  /**
   * Member kubeconfigs by cluster name, one per entry of `members` — or one per member API server: a
   * member without an entry uses that of the first member on its `apiEndpoint` that has one; secret
   * (`pulumi config set --secret --path 'karmada:memberKubeconfigs.<cluster>' < kubeconfig`).
   * @default {}
   */
  readonly memberKubeconfigs?: pulumi.Input<Record<string, string>>;
  /** Addons, each with a unique `name` (its Pulumi name). @default [] */
  readonly addons?: (AddonConfig & {
    /** Pulumi name of the addon (prefix of its children); unique among the addons. */
    readonly name: string;
  })[];
  /**
   * SSH private key (secret config) for every machine of `etcd.hosts.hosts` and
   * `controlPlane.hosts.machines` that sets no `privateKey` of its own, so host lists stay plain config.
   * @default - each machine must set its own `privateKey`
   */
  readonly sshPrivateKey?: pulumi.Input<string>;
}

/** Config namespace of every stack setting (`karmada:etcd`, `karmada:controlPlane` …). */
export const STACK_CONFIG_NAMESPACE = "karmada";

/**
 * How the program reads each `karmada:*` setting: a text or a structured (JSON) value, and whether it is
 * a secret (read with `getSecret`, its value never in a message). Every key of {@link StackConfig}, once.
 */
export const STACK_SETTINGS = {
  hostKubeconfig: { value: "text", secret: true },
  hostContext: { value: "text", secret: false },
  etcd: { value: "object", secret: false },
  controlPlane: { value: "object", secret: false },
  crds: { value: "object", secret: false },
  members: { value: "object", secret: false },
  memberKubeconfigs: { value: "object", secret: true },
  addons: { value: "object", secret: false },
  sshPrivateKey: { value: "text", secret: true },
} as const satisfies Record<keyof StackConfig, { value: "text" | "object"; secret: boolean }>;

/** Every `karmada:*` key a stack may set (the keys of {@link StackConfig}). */
export const STACK_CONFIG_KEYS = Object.keys(STACK_SETTINGS) as readonly (keyof StackConfig)[];

/** The settings the program reads as secrets: their values never appear in messages. */
export const SECRET_STACK_KEYS: readonly (keyof StackConfig)[] = STACK_CONFIG_KEYS.filter(
  (key) => STACK_SETTINGS[key].secret,
);

/** Checks the raw config object: unknown keys are errors (a typo must not silently fall back to a default). */
export function parseStackConfig(raw: Record<string, unknown>): StackConfig {
  for (const key of Object.keys(raw)) {
    if (!(STACK_CONFIG_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(
        `${STACK_CONFIG_NAMESPACE}:${key}`,
        `unknown stack setting ${show(key)}`,
        STACK_CONFIG_KEYS.join(", "),
      );
    }
  }
  for (const key of ["etcd", "controlPlane", "crds"] as const) {
    const value = raw[key];
    check(
      value === undefined || (typeof value === "object" && value !== null && !Array.isArray(value)),
      `karmada:${key}`,
      `must be an object, got ${show(value)}`,
    );
  }
  for (const key of ["members", "addons"] as const) {
    const value = raw[key];
    check(
      value === undefined || Array.isArray(value),
      `karmada:${key}`,
      `must be a list, got ${show(value)}`,
    );
  }
  validateUnique("karmada:members", entryNames(raw.members, "karmada:members", "clusterName"));
  validateUnique("karmada:addons", entryNames(raw.addons, "karmada:addons", "name"));
  return raw as StackConfig;
}

/**
 * The names of a list's entries. Each becomes a Pulumi resource name before the component behind it
 * checks anything, so a missing one is reported here, naming the field.
 */
function entryNames(list: unknown, key: string, nameField: string): string[] {
  return ((list as unknown[] | undefined) ?? []).map((entry, i) => {
    const name = (entry as Record<string, unknown> | null)?.[nameField];
    check(
      typeof name === "string" && name !== "",
      `${key}[${i}].${nameField}`,
      `must be a non-empty string, got ${show(name)}`,
    );
    return name as string;
  });
}

/** Secret stack settings in plain text, read only to be checked (they stay secrets everywhere else). */
export interface PlainStackSecrets {
  /** `karmada:sshPrivateKey`. */
  readonly sshPrivateKey?: string;
  /** `karmada:memberKubeconfigs`, the JSON text of the map. */
  readonly memberKubeconfigs?: string;
  /** `karmada:hostKubeconfig`: a kubeconfig's contents or its path. */
  readonly hostKubeconfig?: string;
}

/** Whether a kubeconfig setting holds a path rather than the contents (one line, not YAML or JSON). */
const isKubeconfigPath = (text: string) => !text.includes("\n") && !/^\s*(\{|apiVersion:)/.test(text);

/** The host kubeconfig's text: the setting's contents, or the file it names (checked to exist). */
function hostKubeconfigText(setting: string): string {
  if (!isKubeconfigPath(setting)) return setting;
  const file = setting.trim().replace(/^~(?=\/)/, os.homedir());
  check(
    fs.existsSync(file),
    "karmada:hostKubeconfig",
    "names a file that does not exist",
    "a kubeconfig's contents or path",
  );
  return fs.readFileSync(file, "utf8");
}

/**
 * Whose `karmada:memberKubeconfigs` entry member `clusterName` uses: its own, or else the first member's
 * on the same `apiEndpoint` that has one (Clusters sharing an API server share a kubeconfig: the engine
 * passes all stack config to the program in one environment variable, which Linux caps at 128 KiB, so a
 * hundred copies of one kubeconfig do not fit). Undefined when neither exists.
 */
export function kubeconfigSource(
  members: readonly Pick<MemberRegistrationConfig, "clusterName" | "apiEndpoint">[],
  clusterName: string,
  has: (clusterName: string) => boolean,
): string | undefined {
  if (has(clusterName)) return clusterName;
  const endpoint = members.find((m) => m.clusterName === clusterName)?.apiEndpoint;
  return members.find((m) => m.apiEndpoint === endpoint && has(m.clusterName))?.clusterName;
}

/**
 * Checks the secret settings before anything registers — their Outputs resolve only while resources
 * are already being created: the SSH key parses (and is not passphrase-protected), the host kubeconfig
 * (contents or path) has the context to use, and the kubeconfig map has an entry for every member (its own,
 * or one of another member on its `apiEndpoint`) and none for anything else,
 * each a kubeconfig. Messages never include the values.
 */
export function validateStackSecrets(plain: PlainStackSecrets, config: StackConfig): void {
  const errors = new ErrorCollector();
  if (plain.sshPrivateKey !== undefined) {
    errors.attempt(() => validateSshPrivateKey("karmada:sshPrivateKey", plain.sshPrivateKey!));
  }
  if (plain.hostKubeconfig !== undefined) {
    errors.attempt(() =>
      validateKubeconfigText(
        "karmada:hostKubeconfig",
        hostKubeconfigText(plain.hostKubeconfig!),
        config.hostContext,
      ),
    );
  }
  const members = (config.members ?? []).map((m) => m.clusterName);
  if (members.length === 0 && plain.memberKubeconfigs === undefined) return errors.throwIfAny();
  errors.attempt(() => {
    let map: unknown;
    try {
      map = JSON.parse(plain.memberKubeconfigs ?? "{}");
    } catch {
      map = undefined;
    }
    check(
      typeof map === "object" && map !== null && !Array.isArray(map),
      "karmada:memberKubeconfigs",
      "is not a map of cluster name to kubeconfig",
      "pulumi config set --secret --path 'karmada:memberKubeconfigs.<cluster>' \"$(cat kubeconfig)\"",
    );
    const entries = map as Record<string, unknown>;
    const given = (name: string) =>
      typeof entries[name] === "string" && (entries[name] as string).trim() !== "";
    for (const name of members) {
      errors.attempt(() => {
        if (given(name))
          return validateKubeconfigText(`karmada:memberKubeconfigs.${name}`, entries[name] as string);
        check(
          kubeconfigSource(config.members ?? [], name, given) !== undefined,
          `karmada:memberKubeconfigs.${name}`,
          "is missing: every member in karmada:members needs its kubeconfig, or another member on its apiEndpoint with one",
          "the member cluster's kubeconfig (secret)",
        );
      });
    }
    for (const name of Object.keys(entries)) {
      errors.attempt(() =>
        check(
          members.includes(name),
          `karmada:memberKubeconfigs.${name}`,
          `belongs to no member (a typo would leave ${show(name)} without one)`,
          members.join(", ") || "no members are listed",
        ),
      );
    }
  });
  errors.throwIfAny();
}
