import { installBinariesBody } from "../../hosts/artifact";
import { renderScript } from "../../hosts/script";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { memberFiles } from "./etcdConfigFile";
import { etcdFunctions } from "./etcdctl";
import { preflightSteps } from "./preflight";
import { EtcdHostsSettings } from "./settings";

/**
 * Checks the host (see preflightSteps), then installs etcd, etcdctl (and etcdutl when the release has
 * it) and checks the version they report. One SSH session: the checks still run before anything changes.
 */
export function installScript(settings: EtcdHostsSettings, member: ResolvedHost): string {
  const files = memberFiles(settings, member);
  return renderScript({
    host: member.name,
    purpose: `preflight checks, install etcd ${settings.version}`,
    functions: [etcdFunctions(files)],
    steps: [
      ...preflightSteps(settings, member),
      {
        name: "install-binaries",
        body: installBinariesBody(settings.artifact, {
          label: `etcd-${settings.version}`,
          required: ["etcd", "etcdctl"],
          optional: ["etcdutl"],
          root: member.root,
          binDir: settings.paths.binDir,
          cacheDir: settings.paths.cacheDir,
        }),
      },
      {
        name: "check-version",
        body: [
          `reported=$(${shq(`${files.bin}/etcd`)} --version | sed -n 's/^etcd Version: //p')`,
          `if [ "v\${reported}" != ${shq(settings.version)} ]; then`,
          `  pk_fail "installed etcd reports version \${reported:-unknown}, expected ${settings.version}"`,
          `fi`,
          `echo "etcd v\${reported} in ${files.bin}"`,
        ].join("\n"),
      },
    ],
  });
}
