import { ScriptStep } from "../../hosts/script";
import { serviceCommands } from "../../hosts/serviceRunner";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { memberFiles } from "./etcdConfigFile";
import { etcdServiceSpec } from "./service";
import { EtcdHostsSettings } from "./settings";

/**
 * Checks before anything is changed on a member's host: tools present, data and certificate dirs
 * writable, etcd's ports free (unless our etcd already holds them). The first steps of the install
 * command (see installScript); they use `pk_port_open` from `etcdFunctions`.
 */
export function preflightSteps(settings: EtcdHostsSettings, member: ResolvedHost): ScriptStep[] {
  const files = memberFiles(settings, member);
  const service = serviceCommands(settings.serviceManager, etcdServiceSpec(settings, member), member.root);
  const tools = ["tar", "sha256sum", "awk", "sed", "cmp", "timeout", "setsid", "nohup", "mktemp"];
  if (settings.artifact.kind === "url" || settings.restoreFrom?.kind === "url") tools.push("curl");
  if (settings.serviceManager === "systemd") tools.push("systemctl");
  const writable = (dir: string, what: string) =>
    [
      `mkdir -p ${shq(dir)} 2>/dev/null || pk_fail ${shq(`cannot create ${what} ${dir}`)}`,
      `if ! ( : > ${shq(`${dir}/.pulumi-karmada-write-test`)} ) 2>/dev/null; then`,
      `  pk_fail ${shq(`${what} ${dir} is not writable`)}`,
      `fi`,
      `rm -f ${shq(`${dir}/.pulumi-karmada-write-test`)}`,
    ].join("\n");
  const ports: [number, string, string][] = [
    [settings.clientPort, "client", "clientPort"],
    [settings.peerPort, "peer", "peerPort"],
  ];
  return [
    {
      name: "check-tools",
      body: `for tool in ${tools.join(" ")}; do
  command -v "\${tool}" >/dev/null 2>&1 || pk_fail "required tool \${tool} is not installed"
done`,
    },
    {
      name: "check-data-dir",
      body: [writable(files.dataDir, "data dir"), writable(files.pkiDir, "certificate dir")].join("\n"),
    },
    {
      name: "check-ports",
      body: [
        `if ${service.isActive}; then`,
        `  echo "etcd is already running here; its ports are its own"`,
        `else`,
        ...ports.map(
          ([port, kind, field]) =>
            `  if pk_port_open ${shq(member.address)} ${port}; then pk_fail ${shq(
              `port ${port} on ${member.address} is already in use (etcd ${kind} port): stop what listens there or change etcd.${field}`,
            )}; fi`,
        ),
        `fi`,
      ].join("\n"),
    },
  ];
}
