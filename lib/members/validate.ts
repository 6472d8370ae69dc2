import { isDns1123Label, validateDns1123Label } from "../validation/dns";
import { ConfigError, ErrorCollector, check, checkAll, show } from "../validation/errors";
import { validateUnique } from "../validation/duplicates";
import { validateLabelKey, validateLabelValue } from "../validation/labels";
import { requireMap } from "../validation/maps";
import { INT32_MAX, validateInteger, validateReplicas } from "../validation/numbers";
import { OwnedFlags, checkNotOwned } from "../validation/owned-flags";
import { validateHttpsUrl } from "../validation/urls";
import {
  AGENT_IDENTITIES,
  CLUSTER_TAINT_EFFECTS,
  MEMBER_PERMISSIONS,
  MemberRegistrationConfig,
  PolicyRule,
  PullOptions,
  SYNC_MODES,
} from "./config";
import { AGENT_NAMESPACE, CLUSTER_NAMESPACE } from "./names";

/** Longest cluster name Karmada accepts: 63 minus the `karmada-es-` prefix of its execution namespace. */
const CLUSTER_NAME_MAX = 48;

/** Validates a cluster name (Karmada's rule: DNS-1123 label of at most 48 characters); returns it. */
export function validateClusterName(field: string, value: string): string {
  if (typeof value !== "string" || value.length > CLUSTER_NAME_MAX || !isDns1123Label(value)) {
    throw new ConfigError(
      field,
      `${show(value)} is not a usable cluster name`,
      `a DNS-1123 label (lower-case alphanumerics and '-', alphanumeric ends) of at most ${CLUSTER_NAME_MAX} characters`,
    );
  }
  return value;
}

const PROXY_SCHEMES = ["http:", "https:", "socks5:"];

/** Validates a proxy URL the way Karmada does (http, https or socks5 with a host); returns it. */
function validateProxyUrl(field: string, value: string): string {
  const form = "http://, https:// or socks5:// URL with a host";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(field, `${show(value)} is not a URL`, form);
  }
  check(PROXY_SCHEMES.includes(url.protocol), field, `${show(value)} has an unsupported scheme`, form);
  check(url.hostname !== "", field, `${show(value)} has no host`, form);
  return value;
}

const FLAG_NAME = /^[a-z0-9][a-z0-9-]*$/;
/**
 * Agent flags the registration owns (see `checkNotOwned`), with the setting that controls each: the
 * identity and its Secret, and every flag the agent writes into the Cluster object (it may not update
 * the declared one, so a different value stops it at start-up).
 */
export const AGENT_OWNED_FLAGS: OwnedFlags = {
  "cluster-name": "clusterName",
  "karmada-kubeconfig": "pull.identity (the agent's kubeconfig Secret)",
  "cluster-api-endpoint": "apiEndpoint",
  "cluster-provider": "provider",
  "cluster-region": "region",
  "cluster-zones": "zones",
  "proxy-server-address": "proxyURL",
  "cluster-namespace": "the fixed karmada-cluster namespace the Cluster's Secrets live in",
  "report-secrets": "pull.reportSecrets",
};

function validatePull(pull: PullOptions): void {
  requireMap("pull", pull, "{ identity, replicas, extraArgs, … }");
  if (pull.replicas !== undefined) validateReplicas("pull.replicas", pull.replicas);
  if (pull.identity !== undefined) {
    check(
      AGENT_IDENTITIES.includes(pull.identity),
      "pull.identity",
      `unknown identity ${show(pull.identity)}`,
      AGENT_IDENTITIES.join(", "),
    );
  }
  for (const [flag, value] of Object.entries(pull.extraArgs ?? {})) {
    const field = `pull.extraArgs[${JSON.stringify(flag)}]`;
    check(
      FLAG_NAME.test(flag),
      field,
      `${show(flag)} is not a flag name`,
      "lower-case name without dashes in front",
    );
    check(typeof value === "string", field, `${show(value)} is not a string`, "a string");
  }
  checkNotOwned("pull.extraArgs", pull.extraArgs ?? {}, {
    name: "the registration",
    flags: AGENT_OWNED_FLAGS,
  });
  if (pull.karmadaApiEndpoint !== undefined)
    validateHttpsUrl("pull.karmadaApiEndpoint", pull.karmadaApiEndpoint);
  if (pull.certValidityHours !== undefined)
    // the CSR's expirationSeconds is an int32
    validateInteger("pull.certValidityHours", pull.certValidityHours, 2, Math.floor(INT32_MAX / 3600));
  if (pull.namespace !== undefined) {
    validateDns1123Label("pull.namespace", pull.namespace);
    check(
      pull.namespace !== CLUSTER_NAMESPACE || pull.reportSecrets === false,
      "pull.namespace",
      `${show(pull.namespace)} is where the agent's reported credentials live (their namespace, accounts and token Secrets are removed with the registration)`,
      `a namespace of the agent's own (default ${show(AGENT_NAMESPACE)}), or reportSecrets: false`,
    );
  }
  if (pull.bootstrapTokenTtlHours !== undefined) {
    validateInteger("pull.bootstrapTokenTtlHours", pull.bootstrapTokenTtlHours, 0, 87600);
  }
}

const RULE_KEYS = ["apiGroups", "resources", "resourceNames", "nonResourceURLs", "verbs"];

function validateRule(field: string, rule: PolicyRule): void {
  requireMap(field, rule, "{ apiGroups, resources, verbs } or { nonResourceURLs, verbs }");
  for (const key of Object.keys(rule)) {
    check(RULE_KEYS.includes(key), `${field}.${key}`, "is not a field of an RBAC rule", RULE_KEYS.join(", "));
  }
  check(
    Array.isArray(rule.verbs) && rule.verbs.length > 0,
    `${field}.verbs`,
    "no verb given",
    "one or more verbs",
  );
  for (const key of ["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"] as const) {
    const list = rule[key];
    check(
      list === undefined || (Array.isArray(list) && list.every((v: unknown) => typeof v === "string")),
      `${field}.${key}`,
      `${show(list)} is not a list of strings`,
      '["…"]',
    );
  }
  const resourceRule = (rule.resources?.length ?? 0) > 0;
  const urlRule = (rule.nonResourceURLs?.length ?? 0) > 0;
  check(
    !urlRule || ((rule.apiGroups?.length ?? 0) === 0 && (rule.resourceNames?.length ?? 0) === 0),
    field,
    "applies to both non-resource URLs and API groups or resource names",
    "a rule of resources (with apiGroups) or one of nonResourceURLs",
  );
  check(
    resourceRule !== urlRule,
    field,
    "needs either resources (with apiGroups) or nonResourceURLs",
    "exactly one of resources, nonResourceURLs",
  );
  if (resourceRule)
    check(
      (rule.apiGroups?.length ?? 0) > 0,
      `${field}.apiGroups`,
      "no API group given",
      '"" for the core group',
    );
}

/**
 * Checks a registration before anything is registered; every problem is a {@link ConfigError} naming
 * the field. Cross-field rules: `pull` only with Pull mode, `extraRules` only with `leastPrivilege`.
 */
export function validateMemberConfig(config: MemberRegistrationConfig): void {
  const errors = new ErrorCollector();
  const run = (fn: () => unknown) => errors.attempt(fn);
  run(() => validateClusterName("clusterName", config.clusterName));
  run(() =>
    check(
      SYNC_MODES.includes(config.mode),
      "mode",
      `unknown sync mode ${show(config.mode)}`,
      SYNC_MODES.join(", "),
    ),
  );
  run(() => validateHttpsUrl("apiEndpoint", config.apiEndpoint));
  if (config.provider !== undefined) run(() => validateLabelValue("provider", config.provider!));
  if (config.region !== undefined) run(() => validateLabelValue("region", config.region!));
  run(() => {
    check(Array.isArray(config.zones ?? []), "zones", `${show(config.zones)} is not a list`);
    (config.zones ?? []).forEach((zone, i) => run(() => validateLabelValue(`zones[${i}]`, zone)));
    validateUnique("zones", config.zones ?? []);
  });
  run(() => {
    check(Array.isArray(config.taints ?? []), "taints", `${show(config.taints)} is not a list`);
    (config.taints ?? []).forEach((taint, i) =>
      run(() => {
        check(typeof taint === "object" && taint !== null, `taints[${i}]`, `${show(taint)} is not a taint`);
        checkAll(
          () => validateLabelKey(`taints[${i}].key`, taint.key),
          () => taint.value !== undefined && validateLabelValue(`taints[${i}].value`, taint.value),
          () =>
            check(
              CLUSTER_TAINT_EFFECTS.includes(taint.effect),
              `taints[${i}].effect`,
              `unsupported effect ${show(taint.effect)}`,
              CLUSTER_TAINT_EFFECTS.join(", "),
            ),
        );
      }),
    );
    // entries that are not taints were reported above; they must not stop the check of the others
    validateUnique("taints", config.taints ?? [], (t) =>
      typeof t === "object" && t !== null ? `${t.key}:${t.effect}` : t,
    );
  });
  if (config.proxyURL !== undefined) run(() => validateProxyUrl("proxyURL", config.proxyURL!));
  const permissions = config.permissions ?? "full";
  run(() =>
    check(
      MEMBER_PERMISSIONS.includes(permissions),
      "permissions",
      `unknown permission set ${show(permissions)}`,
      MEMBER_PERMISSIONS.join(", "),
    ),
  );
  const rulesGiven = config.extraRules !== undefined;
  if (rulesGiven) {
    run(() =>
      check(
        Array.isArray(config.extraRules),
        "extraRules",
        `${show(config.extraRules)} is not a list`,
        "a list of RBAC rules",
      ),
    );
  }
  if (Array.isArray(config.extraRules) && config.extraRules.length > 0) {
    run(() =>
      check(
        permissions === "leastPrivilege",
        "extraRules",
        "only adds to the leastPrivilege role",
        'permissions: "leastPrivilege"',
      ),
    );
    config.extraRules!.forEach((rule, i) => run(() => validateRule(`extraRules[${i}]`, rule)));
  }
  if (config.insecureSkipTLSVerification) {
    run(() =>
      check(
        config.mode === "Push",
        "insecureSkipTLSVerification",
        "only applies to push mode (karmada-agent records its in-cluster connection, which verifies)",
        'mode: "Push"',
      ),
    );
  }
  if (config.credentialsNamespace !== undefined) {
    run(() => validateDns1123Label("credentialsNamespace", config.credentialsNamespace!));
    run(() =>
      check(
        config.mode === "Push",
        "credentialsNamespace",
        "only applies to push mode (karmada-agent's --cluster-namespace names both the member's and Karmada's namespace)",
        'mode: "Push"',
      ),
    );
  }
  if (config.pull !== undefined) {
    run(() =>
      check(config.mode === "Pull", "pull", `is given but mode is ${show(config.mode)}`, 'mode: "Pull"'),
    );
    run(() => validatePull(config.pull!));
  }
  run(() => validateInteger("credentialGeneration", config.credentialGeneration ?? 0, 0));
  if (config.protect !== undefined) {
    run(() =>
      check(
        typeof config.protect === "boolean",
        "protect",
        `${show(config.protect)} is not a boolean`,
        "true, false",
      ),
    );
  }
  errors.throwIfAny();
}
