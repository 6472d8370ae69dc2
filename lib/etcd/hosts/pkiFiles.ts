/**
 * Certificate files of a member on its host (under `<configDir>/pki`), and the framing used to send
 * them over stdin: keys never appear in a script, an argument or an environment variable.
 */

/** Files every member needs; `client.*` is what our scripts use to run etcdctl against the cluster. */
export const MEMBER_PKI_FILES = [
  "ca.crt",
  "server.crt",
  "server.key",
  "peer.crt",
  "peer.key",
  "client.crt",
  "client.key",
] as const;

/** One of {@link MEMBER_PKI_FILES}. */
export type MemberPkiFile = (typeof MEMBER_PKI_FILES)[number];

/** The line that starts a file in a bundle. */
function bundleHeader(file: MemberPkiFile): string {
  return `--- pulumi-karmada file: ${file} ---`;
}

/**
 * Frames PEM contents into one stdin stream: a header line per file, then its content. The write-certs
 * script splits it back with awk, accepting only the known names.
 */
export function pkiBundle(files: Readonly<Record<MemberPkiFile, string>>): string {
  return MEMBER_PKI_FILES.map((file) => `${bundleHeader(file)}\n${files[file].trim()}\n`).join("");
}
