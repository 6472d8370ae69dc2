import { renderScript } from "../../hosts/script";
import { serviceCommands } from "../../hosts/serviceRunner";
import { shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { memberFiles } from "./etcdConfigFile";
import { etcdServiceSpec } from "./service";
import { EtcdHostsSettings } from "./settings";

/**
 * Run when a member's commands are deleted (host removed from the list, or the component deleted):
 * stops and removes the service. Membership was already changed by the cluster step. The data dir is
 * left alone unless `deleteData`, and even then only moved aside, never erased.
 */
export function teardownScript(settings: EtcdHostsSettings, member: ResolvedHost): string {
  const files = memberFiles(settings, member);
  const service = serviceCommands(settings.serviceManager, etcdServiceSpec(settings, member), member.root);
  const data = settings.deleteData
    ? `if [ -d ${shq(files.dataDir)} ]; then
  aside=${shq(files.dataDir)}.deleted-$(date -u +%Y%m%dT%H%M%SZ)
  mv ${shq(files.dataDir)} "\${aside}"
  echo "data dir moved aside to \${aside} (deleteData)"
fi`
    : `echo "data dir ${files.dataDir} kept (deleteData is false)"`;
  return renderScript({
    host: member.name,
    purpose: "stop etcd member",
    steps: [
      { name: "stop-service", body: `${service.remove}\necho "etcd stopped"` },
      { name: "data-dir", body: data },
    ],
  });
}
