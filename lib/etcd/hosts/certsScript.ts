import { PRIVATE_FILE_FUNCTIONS, renderScript } from "../../hosts/script";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { memberFiles } from "./etcdConfigFile";
import { MEMBER_PKI_FILES } from "./pkiFiles";
import { EtcdHostsSettings } from "./settings";

/**
 * Writes the member's certificates and keys from the bundle on stdin (see `pkiBundle`) into the pki
 * dir: the dir 0700, every file 0600 (the client key included), all owned by the user the script runs
 * as — the user etcd's service runs as (see `PRIVATE_FILE_FUNCTIONS`). Modes and owner are enforced on
 * every run; only files that changed are replaced. etcd re-reads them on each TLS handshake.
 */
export function certsScript(settings: EtcdHostsSettings, member: ResolvedHost): string {
  const pki = memberFiles(settings, member).pkiDir;
  const names = MEMBER_PKI_FILES.join(" ");
  const pattern = MEMBER_PKI_FILES.map((f) => f.replace(/\./g, "\\.")).join("|");
  return renderScript({
    host: member.name,
    purpose: "write etcd certificates from stdin",
    functions: [PRIVATE_FILE_FUNCTIONS],
    steps: [
      {
        name: "read-certificates",
        body: [
          `pki_dir=${shq(pki)}`,
          `pk_private_dir "\${pki_dir}" || pk_fail "cannot create \${pki_dir}"`,
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
          `    pk_owned_file 0600 "\${incoming}/\${f}"`,
          `    mv -f "\${incoming}/\${f}" "\${pki_dir}/\${f}"`,
          `    changed=$((changed + 1))`,
          `  fi`,
          `  pk_owned_file 0600 "\${pki_dir}/\${f}"`,
          `done`,
          `rm -rf "\${incoming}"`,
          `echo "\${changed} certificate file(s) updated in \${pki_dir}"`,
        ].join("\n"),
      },
    ],
  });
}
