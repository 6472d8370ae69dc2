import { renderScript } from "../../hosts/script";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { memberFiles } from "./config";
import { MEMBER_PKI_FILES } from "./pkiFiles";
import { EtcdHostsSettings } from "./settings";

/**
 * Writes the member's certificates and keys from the bundle on stdin (see `pkiBundle`) into the pki
 * dir, mode 0600, replacing only files that changed. etcd re-reads them on each TLS handshake.
 */
export function certsScript(settings: EtcdHostsSettings, member: ResolvedHost): string {
  const pki = memberFiles(settings, member).pkiDir;
  const names = MEMBER_PKI_FILES.join(" ");
  const pattern = MEMBER_PKI_FILES.map((f) => f.replace(/\./g, "\\.")).join("|");
  return renderScript({
    host: member.name,
    purpose: "write etcd certificates from stdin",
    steps: [
      {
        name: "read-certificates",
        body: [
          `pki_dir=${shq(pki)}`,
          `if ! { mkdir -p "\${pki_dir}" && chmod 0700 "\${pki_dir}"; }; then pk_fail "cannot create \${pki_dir}"; fi`,
          `incoming=$(mktemp -d "\${pki_dir}/.incoming.XXXXXX")`,
          `awk -v dir="\${incoming}" '`,
          `  /^--- pulumi-karmada file: [a-z.]+ ---$/ { file = ""; if ($4 ~ /^(${pattern})$/) file = dir "/" $4; next }`,
          `  file != "" { print > file }`,
          `' || { rm -rf "\${incoming}"; pk_fail "cannot read the certificate bundle from stdin"; }`,
          `for f in ${names}; do`,
          `  if [ ! -s "\${incoming}/\${f}" ]; then rm -rf "\${incoming}"; pk_fail "certificate bundle on stdin lacks \${f}"; fi`,
          `done`,
        ].join("\n"),
      },
      {
        name: "write-certificates",
        body: [
          `changed=0`,
          `for f in ${names}; do`,
          `  if ! cmp -s "\${incoming}/\${f}" "\${pki_dir}/\${f}"; then`,
          `    chmod 0600 "\${incoming}/\${f}"`,
          `    mv -f "\${incoming}/\${f}" "\${pki_dir}/\${f}"`,
          `    changed=$((changed + 1))`,
          `  fi`,
          `done`,
          `rm -rf "\${incoming}"`,
          `echo "\${changed} certificate file(s) updated in \${pki_dir}"`,
        ].join("\n"),
      },
    ],
  });
}
