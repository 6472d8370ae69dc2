/**
 * Bearer-token authentication: every request names a configured token, compared in constant time; the
 * token's name (never the token) is who did it, for the audit log.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string) => createHash("sha256").update(text).digest();

/** The name of the token an `Authorization` header carries, or undefined when it carries none we know. */
export function tokenName(
  header: string | undefined,
  tokens: ReadonlyMap<string, string>,
): string | undefined {
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header ?? "");
  if (!match) return undefined;
  // equal-length digests: the comparison takes as long for every token, right or wrong
  const given = digest(match[1]);
  let found: string | undefined;
  for (const [name, token] of tokens) if (timingSafeEqual(given, digest(token))) found = name;
  return found;
}
