import { ConfigError, show } from "../validation/errors";

/**
 * Key usages (RFC 5280 §4.2.1.3) by the snake_case names the tls provider accepts in `allowedUses`.
 */
export const KEY_USAGES = [
  "digital_signature",
  "content_commitment",
  "key_encipherment",
  "data_encipherment",
  "key_agreement",
  "cert_signing",
  "crl_signing",
  "encipher_only",
  "decipher_only",
] as const;

/**
 * Extended key usages (RFC 5280 §4.2.1.12) by their tls-provider names. The two Microsoft code-signing
 * names are accepted by the provider bundled with @pulumi/tls 5.6.1 (its `allowedUses` documentation
 * lists them); older providers lack them.
 */
export const EXTENDED_KEY_USAGES = [
  "any_extended",
  "server_auth",
  "client_auth",
  "code_signing",
  "email_protection",
  "ipsec_end_system",
  "ipsec_tunnel",
  "ipsec_user",
  "timestamping",
  "ocsp_signing",
  "microsoft_server_gated_crypto",
  "netscape_server_gated_crypto",
  "microsoft_commercial_code_signing",
  "microsoft_kernel_code_signing",
] as const;

/** A key usage name. */
export type KeyUsage = (typeof KEY_USAGES)[number];
/** An extended key usage name. */
export type ExtendedKeyUsage = (typeof EXTENDED_KEY_USAGES)[number];
/** Every name the tls provider accepts in `allowedUses`. */
export type AllowedUse = KeyUsage | ExtendedKeyUsage;

/** All accepted `allowedUses` names: key usages first, then extended key usages. */
export const ALLOWED_USES: readonly AllowedUse[] = [...KEY_USAGES, ...EXTENDED_KEY_USAGES];

/** True for a name in {@link KEY_USAGES}. */
export const isKeyUsage = (use: string): use is KeyUsage => (KEY_USAGES as readonly string[]).includes(use);

/** True for a name in {@link EXTENDED_KEY_USAGES}. */
export const isExtendedKeyUsage = (use: string): use is ExtendedKeyUsage =>
  (EXTENDED_KEY_USAGES as readonly string[]).includes(use);

/**
 * Validates an `allowedUses` list. The tls provider only warns about names it does not know and then
 * drops them, so `serverAuth` or `server-auth` would yield a certificate that silently lacks the usage;
 * we reject them here, before any resource is registered. Duplicates are rejected too.
 */
export function validateAllowedUses(field: string, uses: readonly string[]): readonly AllowedUse[] {
  if (!Array.isArray(uses) || uses.length === 0) {
    throw new ConfigError(field, `${show(uses)} is not a non-empty list of usages`, ALLOWED_USES.join(", "));
  }
  uses.forEach((use, index) => {
    if (!(ALLOWED_USES as readonly string[]).includes(use)) {
      throw new ConfigError(`${field}[${index}]`, `unknown usage ${show(use)}`, ALLOWED_USES.join(", "));
    }
    const first = uses.indexOf(use);
    if (first !== index) {
      throw new ConfigError(
        `${field}[${index}]`,
        `duplicate usage ${show(use)} (already at ${field}[${first}])`,
      );
    }
  });
  return uses as readonly AllowedUse[];
}
