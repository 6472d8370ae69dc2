/**
 * Every secret value a stack holds, in plaintext, so a test can prove an artefact (a PR summary, a
 * preview's JSON, a log) carries none of them: the state's secrets (`pulumi stack export --show-secrets`)
 * and the stack config's secrets (`pulumi config --show-secrets --json`).
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { execFileSync } from "child_process";
import type { EngineEnv } from "./env";

/** Shorter strings (`true`, a port, a namespace) would be found by coincidence, not by a leak. */
const MIN_SECRET_LENGTH = 12;
/** A line of a secret is looked for on its own from this length (a PEM body line is 64). */
const MIN_LINE_LENGTH = 24;

/** `pulumi stack export --show-secrets` marks a secret with the SDK's secret signature; its `plaintext` is JSON. */
const isExportedSecret = (record: Record<string, unknown>) => record[specialSigKey] === specialSecretSig;

/** Every string inside `value` (nested objects and arrays included). */
function stringsIn(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => stringsIn(v, out));
  else if (value && typeof value === "object") Object.values(value).forEach((v) => stringsIn(v, out));
}

/**
 * What to look for of one secret string: the whole value, and each of its lines long enough to be
 * telling on its own (a PEM key leaked a line at a time is still leaked).
 */
export function secretNeedles(secret: string): string[] {
  const lines = secret
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length >= MIN_LINE_LENGTH && !/^-----(BEGIN|END) /.test(l));
  return [...new Set([secret.trim(), ...lines])].filter((s) => s.length >= MIN_SECRET_LENGTH);
}

/**
 * Every string of an export outside its secrets: what the stack itself holds in plaintext. A certificate
 * or a public key is public even where a secret embeds it, and a private key's encoding carries the public
 * modulus: a needle found inside these is no leak.
 */
export function plaintextInExport(exported: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      const record = value as Record<string, unknown>;
      if (isExportedSecret(record)) return;
      Object.values(record).forEach(walk);
    }
  };
  walk(exported);
  return out;
}

/** The plaintext of every secret in an export made with `--show-secrets`. */
export function secretsInExport(exported: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== "object") return;
    const record = value as Record<string, unknown>;
    if (isExportedSecret(record)) {
      const plaintext = record.plaintext;
      stringsIn(typeof plaintext === "string" ? JSON.parse(plaintext) : plaintext, out);
      return;
    }
    Object.values(record).forEach(walk);
  };
  walk(exported);
  return out;
}

/** The secret values of `pulumi config --show-secrets --json`. */
export function secretsInConfig(
  config: Record<string, { value?: unknown; objectValue?: unknown; secret?: boolean }>,
): string[] {
  const out: string[] = [];
  for (const entry of Object.values(config))
    if (entry.secret) stringsIn(entry.objectValue ?? entry.value, out);
  return out;
}

/** A stack's secrets, as needles to look for, and any private key it holds outside a secret. */
export interface StackSecrets {
  /** Every needle of every secret, less what the stack also holds in plaintext (certificates, public keys). */
  readonly needles: string[];
  /** Plaintext state strings holding a PEM private key: each one a secret not kept as one. */
  readonly plaintextPrivateKeys: string[];
}

/** The secrets of the stack `stackName` of the project in `workDir`. */
export function stackSecrets(engine: EngineEnv, workDir: string, stackName: string): StackSecrets {
  const pulumi = (...args: string[]) =>
    execFileSync(engine.pulumiBinary, [...args, "--stack", stackName], {
      cwd: workDir,
      env: { ...process.env, ...engine.env },
      encoding: "utf8",
      maxBuffer: 1 << 30,
      stdio: ["ignore", "pipe", "pipe"],
    });
  return secretsOfStack(
    JSON.parse(pulumi("stack", "export", "--show-secrets")),
    JSON.parse(pulumi("config", "--show-secrets", "--json")),
  );
}

/** {@link StackSecrets} of an export made with `--show-secrets` and the stack's `config --show-secrets --json`. */
export function secretsOfStack(
  exported: unknown,
  config: Parameters<typeof secretsInConfig>[0],
): StackSecrets {
  const secrets = [...secretsInExport(exported), ...secretsInConfig(config)];
  const plaintext = plaintextInExport(exported);
  const publicText = plaintext.filter((text) => text.length >= MIN_SECRET_LENGTH).join("\u0000");
  return {
    needles: [...new Set(secrets.flatMap(secretNeedles))].filter((needle) => !publicText.includes(needle)),
    plaintextPrivateKeys: plaintext.filter((text) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)),
  };
}

/** The needles found in `text`, shortened for a readable failure (never the whole secret). */
export function leakedSecrets(text: string, needles: readonly string[]): string[] {
  return needles.filter((n) => text.includes(n)).map((n) => `${n.slice(0, 6)}… (${n.length} chars)`);
}
