import { installBinariesBody } from "../../hosts/artifact";
import { renderScript } from "../../hosts/script";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { ControlPlaneComponent } from "../flags-ports";
import { reportedVersionCommand } from "./binaries";
import { componentHostFiles } from "./layout";
import { ControlPlaneHostsSettings } from "./settings";

/** Marker label of an installed binary: names the version, so a new version re-installs. */
const installLabel = (file: string, version: string) => `${file}-${version}`;

/**
 * Installs one component's binary (download verified by SHA-256, or copied from a path on the host) and
 * checks the version it reports. Only this binary is touched: a running process keeps the old file
 * (replaced by rename) until its service restarts it.
 */
export function installScript(
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): string {
  const binary = settings.binaries[component]!;
  const files = componentHostFiles(settings, host, component);
  return renderScript({
    host: host.name,
    purpose: `install ${binary.file} ${binary.version}`,
    steps: [
      {
        name: `install-${component}`,
        body: installBinariesBody(binary.artifact, {
          label: installLabel(binary.file, binary.version),
          required: [binary.file],
          optional: [],
          root: host.root,
          binDir: settings.paths.binDir,
          cacheDir: settings.paths.cacheDir,
        }),
      },
      {
        name: `check-version-${component}`,
        body: [
          reportedVersionCommand(binary.family, files.bin),
          `if [ "\${reported}" != ${shq(binary.version)} ]; then`,
          `  pk_fail "installed ${binary.file} reports version \${reported:-unknown}, expected ${binary.version}"`,
          `fi`,
          `echo "${binary.file} \${reported} in ${files.bin}"`,
        ].join("\n"),
      },
    ],
  });
}

/** Removes the binary and its install markers (after the service is gone). */
export function uninstallScript(
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
  component: ControlPlaneComponent,
): string {
  const binary = settings.binaries[component]!;
  const files = componentHostFiles(settings, host, component);
  const binDir = files.bin.slice(0, files.bin.lastIndexOf("/"));
  return renderScript({
    host: host.name,
    purpose: `remove ${binary.file}`,
    steps: [
      {
        name: `remove-${component}`,
        body: [
          `rm -f ${shq(files.bin)} ${shq(`${binDir}/.pulumi-karmada-${binary.file}-`)}*`,
          `echo "removed ${files.bin}"`,
        ].join("\n"),
      },
    ],
  });
}
