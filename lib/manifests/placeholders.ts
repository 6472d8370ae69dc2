/**
 * Placeholders for fields whose values only exist as Pulumi Outputs (the Karmada CA, the API server URL).
 *
 * Manifests stay pure, plain objects: such a field holds a placeholder token, and the apply layer swaps
 * every token for its value with {@link substitute}. Contract:
 * - a string that EQUALS a token becomes the value given for that token, unchanged (an Output stays an
 *   Output, so Pulumi tracks its secrecy and dependencies);
 * - a string that CONTAINS a token among other text (e.g. a kubeconfig inside a ConfigMap) is split into
 *   literal text and values, in order, and handed to `options.interpolate` — pass
 *   `(parts) => pulumi.concat(...parts)`; without `interpolate` such a string is an error;
 * - a string containing `@@karmada:…@@` that is not a known token is an error (typo guard);
 * - only the {@link PLACEHOLDER_FIELDS} the library fills are read: a user's string anywhere else (an
 *   extra argument, a label, a CRD's description) is applied as written, token-shaped or not;
 * - object keys are never substituted.
 */
export const PLACEHOLDERS = {
  /** Base64 of the Karmada CA certificate PEM: `caBundle` fields, kubeconfig `certificate-authority-data`. */
  caBundle: "@@karmada:ca-bundle@@",
  /** The Karmada CA certificate as raw PEM text. */
  caCrt: "@@karmada:ca-crt@@",
  /** URL clients use to reach karmada-apiserver, e.g. `https://10.0.0.10:5443`. */
  apiServerUrl: "@@karmada:apiserver-url@@",
  /**
   * SHA-256 of the certificates a pod template mounts (pod-template annotation): renewed certificates
   * change it, and with it the template, so the workload rolls onto them.
   */
  certificatesChecksum: "@@karmada:certificates-sha256@@",
} as const;

/**
 * Pod-template annotation holding the SHA-256 of the certificates the pods mount. A Secret's new data
 * alone restarts nothing (kubeconfig client certificates are read once at start); a changed template
 * rolls the workload. Its value is {@link PLACEHOLDERS.certificatesChecksum}, resolved when applied.
 */
export const CERTIFICATES_CHECKSUM_ANNOTATION = "karmada.pulumi.io/certificates-sha256";

/**
 * The fields the library puts placeholders in, as path segments (`*`: any list index): nothing else
 * is substituted or checked for tokens. A unit test keeps this list and the manifests in step.
 */
export const PLACEHOLDER_FIELDS: readonly (readonly string[])[] = [
  // webhook configurations trust the Karmada CA (lib/manifests/karmada/webhooks.ts)
  ["webhooks", "*", "clientConfig", "caBundle"],
  // APIServices of the aggregated API server and the metrics adapter (lib/manifests/karmada/apiservices.ts)
  ["spec", "caBundle"],
  // CRD conversion webhooks (the bundle's patches, lib/crds/bundle.ts)
  ["spec", "conversion", "webhook", "clientConfig", "caBundle"],
  // kube-public/cluster-info's kubeconfig: URL and CA embedded in text (lib/manifests/karmada/bootstrap.ts)
  ["data", "kubeconfig"],
  // workloads roll when their certificates change (lib/manifests/workloads/metadata.ts)
  ["spec", "template", "metadata", "annotations", CERTIFICATES_CHECKSUM_ANNOTATION],
];

/** Whether the field at `segments` is one of the {@link PLACEHOLDER_FIELDS}. */
function isPlaceholderField(segments: readonly (string | number)[]): boolean {
  return PLACEHOLDER_FIELDS.some(
    (field) =>
      field.length === segments.length &&
      field.every((part, i) => (part === "*" ? typeof segments[i] === "number" : part === segments[i])),
  );
}

/** One of the {@link PLACEHOLDERS} tokens. */
export type PlaceholderToken = (typeof PLACEHOLDERS)[keyof typeof PLACEHOLDERS];

const KNOWN_TOKENS: ReadonlySet<string> = new Set(Object.values(PLACEHOLDERS));

/** Anything shaped like a token, known or not, so typos are caught rather than applied verbatim. */
const TOKEN_PATTERN = /@@karmada:[^@\s]*@@/g;

/** A plain JSON-like value in which some leaves may have been replaced by values of type `T`. */
export type Substituted<T> =
  T | string | number | boolean | null | Substituted<T>[] | { [key: string]: Substituted<T> };

/** Options of {@link substitute}. */
export interface SubstituteOptions<T> {
  /**
   * Joins the pieces of a string that contains tokens among other text. `parts` alternates literal text
   * and token values, in order. Needed only for such strings.
   * @default - such strings are an error
   */
  readonly interpolate?: (parts: (string | T)[]) => T;
}

/** Where a placeholder occurs: a dotted path (`webhooks[0].clientConfig.caBundle`) and the token. */
export interface PlaceholderUse {
  /** Dotted path of the string field, array indices in brackets. */
  readonly path: string;
  /** The token found there. */
  readonly token: PlaceholderToken;
  /** Whether the whole string is the token (false: the token is embedded in other text). */
  readonly whole: boolean;
}

const childPath = (path: string, key: string | number): string =>
  typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/** Splits a string into literal text and tokens, checking every token-shaped piece is a known token. */
function splitTokens(text: string, path: string): (string | { token: PlaceholderToken })[] {
  const parts: (string | { token: PlaceholderToken })[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN_PATTERN)) {
    if (!KNOWN_TOKENS.has(match[0])) {
      throw new Error(
        `unknown placeholder ${match[0]} at ${path || "<root>"} (known: ${[...KNOWN_TOKENS].join(", ")})`,
      );
    }
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push({ token: match[0] as PlaceholderToken });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** Copies `value`, handing each string in a {@link PLACEHOLDER_FIELDS} field to `visitString`. */
function walk(
  value: unknown,
  path: string,
  segments: readonly (string | number)[],
  visitString: (text: string, path: string) => unknown,
): unknown {
  if (typeof value === "string") return isPlaceholderField(segments) ? visitString(value, path) : value;
  if (Array.isArray(value)) {
    return value.map((item, i) => walk(item, childPath(path, i), [...segments, i], visitString));
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        walk(item, childPath(path, key), [...segments, key], visitString),
      ]),
    );
  }
  return value;
}

/**
 * Every placeholder occurrence in the {@link PLACEHOLDER_FIELDS} of `obj`, in document order. Used by tests, by the YAML synth command
 * (to show what stays unresolved) and to check that an object needs only the values at hand.
 */
export function findPlaceholders(obj: unknown): PlaceholderUse[] {
  const uses: PlaceholderUse[] = [];
  walk(obj, "", [], (text, path) => {
    const parts = splitTokens(text, path);
    for (const part of parts) {
      if (typeof part !== "string") uses.push({ path, token: part.token, whole: parts.length === 1 });
    }
    return text;
  });
  return uses;
}

/**
 * Returns a deep copy of `obj` with every placeholder replaced by its value from `values` (see the
 * contract at {@link PLACEHOLDERS}). Throws, naming the field path, when a token has no value, is
 * unknown, or is embedded in other text without `options.interpolate`.
 */
export function substitute<T>(
  obj: unknown,
  values: Partial<Record<PlaceholderToken, T>>,
  options: SubstituteOptions<T> = {},
): Substituted<T> {
  const valueOf = (token: PlaceholderToken, path: string): T => {
    if (!(token in values)) throw new Error(`no value given for placeholder ${token} at ${path || "<root>"}`);
    return values[token] as T;
  };
  return walk(obj, "", [], (text, path) => {
    const parts = splitTokens(text, path);
    if (!parts.some((part) => typeof part !== "string")) return text;
    if (parts.length === 1) return valueOf((parts[0] as { token: PlaceholderToken }).token, path);
    if (!options.interpolate) {
      throw new Error(`placeholder embedded in text at ${path || "<root>"} needs options.interpolate`);
    }
    return options.interpolate(
      parts.map((part) => (typeof part === "string" ? part : valueOf(part.token, path))),
    );
  }) as Substituted<T>;
}
