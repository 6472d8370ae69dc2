/**
 * Keeps secrets inside the server. Everything the API sends — responses, progress events, errors — goes
 * through a {@link Redactor}: the values it knows are secret (the tokens, the stack's secret settings,
 * its secret outputs, each also in base64) and anything shaped like a private key or a kubeconfig's
 * credentials become `[secret]`.
 */

/** `T` with every `readonly` removed, at every depth (what a JSON round trip gives back). */
export type Writable<T> = T extends readonly (infer U)[]
  ? Writable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Writable<T[K]> }
    : T;

/** What a secret is replaced with. */
export const REDACTED = "[secret]";

/** Credential shapes no response may carry, whoever's they are. */
const SHAPES: readonly RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  /\b(client-key-data|token|client-certificate-data|password)(["']?\s*[:=]\s*["']?)[A-Za-z0-9+/=._~-]{8,}/gi,
];

/** Shortest known value redacted by content: shorter ones (a `true`, a port) would mangle the text. */
const MIN_SECRET_LENGTH = 6;

export class Redactor {
  private readonly known = new Set<string>();

  /** Adds secret values (strings; objects are walked, every string leaf taken). */
  add(...values: unknown[]): this {
    for (const value of values) {
      if (typeof value === "string") {
        for (const form of [value, Buffer.from(value).toString("base64"), JSON.stringify(value).slice(1, -1)])
          if (form.length >= MIN_SECRET_LENGTH) this.known.add(form);
        // a multi-line secret (a key, a kubeconfig) is also caught line by line
        for (const line of value.split("\n")) if (line.trim().length >= 16) this.known.add(line.trim());
      } else if (value && typeof value === "object") {
        this.add(...Object.values(value as Record<string, unknown>));
      }
    }
    return this;
  }

  /** `text` with every known secret and credential shape replaced. */
  text(text: string): string {
    let out = text;
    // longest first: a secret containing another is replaced whole
    for (const secret of [...this.known].sort((a, b) => b.length - a.length))
      out = out.split(secret).join(REDACTED);
    for (const shape of SHAPES)
      out = out.replace(shape, (match, key?: string, sep?: string) =>
        key !== undefined && sep !== undefined && !match.startsWith("-----")
          ? `${key}${sep}${REDACTED}`
          : REDACTED,
      );
    return out;
  }

  /** A JSON value with every string leaf redacted. */
  value<T>(value: T): Writable<T> {
    const walk = (v: unknown): unknown =>
      typeof v === "string"
        ? this.text(v)
        : Array.isArray(v)
          ? v.map(walk)
          : v && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
            : v;
    return walk(value) as Writable<T>;
  }
}
