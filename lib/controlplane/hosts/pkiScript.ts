import { PRIVATE_FILE_FUNCTIONS, renderScript } from "../../hosts/script";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { ControlPlaneComponent } from "../flags-ports";
import { bundleFileMode, componentBundleFiles, KUBECONFIG_FILE } from "./bundle";
import { componentHostFiles } from "./layout";
import { ControlPlaneHostsSettings } from "./settings";

/**
 * Writes a component's certificates, keys and kubeconfig from the bundle on stdin: the component's
 * directory, its `pki/` and `serving/` (where a binary writes a self-signed serving key) 0700,
 * certificates 0644, keys and the kubeconfig 0600 — all owned by the user the script runs as, which is
 * the user the component's service runs as (see `PRIVATE_FILE_FUNCTIONS`). Modes and owner are
 * enforced on every run, also on files left unchanged. Only changed files are replaced (through a
 * rename); files the component no longer gets are removed.
 */
export function pkiScript(
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): string {
  const files = componentHostFiles(settings, host, component);
  const names = componentBundleFiles(component);
  const pattern = names.map((f) => f.replace(/\./g, "\\.")).join("|");
  const target = (file: string) => (file === KUBECONFIG_FILE ? files.kubeconfig : `${files.pkiDir}/${file}`);
  const write = names.map((file) => `place ${shq(file)} ${shq(target(file))} ${bundleFileMode(file)}`);
  return renderScript({
    host: host.name,
    purpose: `write ${component} certificates and kubeconfig from stdin`,
    functions: [
      PRIVATE_FILE_FUNCTIONS,
      `place() {
  # place NAME TARGET MODE: move the incoming file over TARGET unless identical; TARGET gets MODE and our owner
  if cmp -s "\${incoming}/$1" "$2"; then
    rm -f "\${incoming}/$1"
  else
    pk_owned_file "$3" "\${incoming}/$1"
    mv -f "\${incoming}/$1" "$2"
    changed=$((changed + 1))
  fi
  pk_owned_file "$3" "$2"
}`,
    ],
    steps: [
      {
        name: "read-bundle",
        body: [
          `dir=${shq(files.dir)}`,
          `pki_dir=${shq(files.pkiDir)}`,
          `pk_private_dir "\${dir}" "\${pki_dir}" ${shq(files.servingDir)} || pk_fail "cannot create \${pki_dir}"`,
          `incoming=$(mktemp -d "\${dir}/.incoming.XXXXXX")`,
          `trap 'rm -rf "\${incoming}"' EXIT`,
          `awk -v dir="\${incoming}" '`,
          `  /^--- pulumi-karmada file: [A-Za-z0-9.-]+ ---$/ { file = ""; if ($4 ~ /^(${pattern})$/) file = dir "/" $4; next }`,
          `  file != "" { print > file }`,
          `' || pk_fail "cannot read the certificate bundle from stdin"`,
          `for f in ${names.map(shq).join(" ")}; do`,
          `  [ -s "\${incoming}/\${f}" ] || pk_fail "certificate bundle on stdin lacks \${f}"`,
          `done`,
        ].join("\n"),
      },
      {
        name: "write-files",
        body: [
          `changed=0`,
          ...write,
          // leftovers of an earlier configuration (e.g. a disabled feature's certificate)
          `for f in "\${pki_dir}"/*; do`,
          `  [ -e "\${f}" ] || continue`,
          `  case "$(basename "\${f}")" in ${names.filter((n) => n !== KUBECONFIG_FILE).join("|")}) ;; *) rm -f "\${f}"; changed=$((changed + 1));; esac`,
          `done`,
          `echo "\${changed} file(s) of ${component} updated in \${dir}"`,
        ].join("\n"),
      },
    ],
  });
}

/** Removes a component's directory (certificates, keys, kubeconfig, fingerprint). */
export function pkiRemoveScript(
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): string {
  const files = componentHostFiles(settings, host, component);
  return renderScript({
    host: host.name,
    purpose: `remove ${component} certificates`,
    steps: [
      { name: `remove-${component}-files`, body: `rm -rf ${shq(files.dir)}\necho "removed ${files.dir}"` },
    ],
  });
}
