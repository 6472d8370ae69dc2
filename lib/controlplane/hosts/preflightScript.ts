import { renderScript } from "../../hosts/script";
import { serviceCommands } from "../../hosts/serviceRunner";
import { rooted, shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { ComponentPorts, componentPorts } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { HOST_FUNCTIONS } from "./functions";
import { hostCacheDir } from "./layout";
import { ControlPlaneHostsSettings } from "./settings";
import { serviceSpec } from "./serviceSpec";

const PORT_KINDS: readonly (keyof ComponentPorts)[] = ["secure", "health", "metrics"];

/**
 * Checks before anything changes on a host: tools present, directories writable, and every port of
 * every enabled component free — unless that component's own service is what listens.
 */
export function preflightScript(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  host: ResolvedHost,
): string {
  const tools = ["tar", "sha256sum", "awk", "sed", "cmp", "timeout", "setsid", "nohup", "mktemp", "curl"];
  if (settings.serviceManager === "systemd") tools.push("systemctl");
  const dirs: [string, string][] = [
    [rooted(host.root, settings.paths.binDir), "bin dir"],
    [rooted(host.root, settings.paths.configDir), "config dir"],
    [hostCacheDir(settings, host), "download cache"],
  ];
  const portChecks = settings.components.flatMap((component) => {
    const service = serviceCommands(
      settings.serviceManager,
      serviceSpec(cp, settings, host, component),
      host.root,
    );
    const ports = componentPorts(component, cp);
    const checks = PORT_KINDS.filter((kind) => ports[kind] !== undefined).map(
      (kind) =>
        `  if pk_port_open ${shq(host.address)} ${ports[kind]}; then pk_fail ${shq(
          `port ${ports[kind]} on ${host.address} is already in use (${component} ${kind} port): stop what listens there`,
        )}; fi`,
    );
    return [`if ! ${service.isActive}; then`, ...checks, `fi`];
  });
  return renderScript({
    host: host.name,
    purpose: "control-plane preflight checks",
    functions: [HOST_FUNCTIONS],
    steps: [
      {
        name: "check-tools",
        body: `for tool in ${tools.join(" ")}; do
  command -v "\${tool}" >/dev/null 2>&1 || pk_fail "required tool \${tool} is not installed"
done`,
      },
      {
        name: "check-dirs",
        body: dirs
          .map(([dir, what]) =>
            [
              `mkdir -p ${shq(dir)} 2>/dev/null || pk_fail ${shq(`cannot create ${what} ${dir}`)}`,
              `( : > ${shq(`${dir}/.pulumi-karmada-write-test`)} ) 2>/dev/null || pk_fail ${shq(`${what} ${dir} is not writable`)}`,
              `rm -f ${shq(`${dir}/.pulumi-karmada-write-test`)}`,
            ].join("\n"),
          )
          .join("\n"),
      },
      { name: "check-ports", body: portChecks.join("\n") },
    ],
  });
}
