import { ServiceSpec } from "../../hosts/service";
import { ResolvedHost } from "../../hosts/spec";
import { memberFiles } from "./etcdConfigFile";
import { EtcdHostsSettings } from "./settings";

/** Unit / supervisor name of the etcd member service. */
const ETCD_SERVICE = "pk-etcd";
/** Unit / supervisor name of the periodic snapshot job. */
const ETCD_BACKUP_SERVICE = "pk-etcd-backup";

/** The etcd member as a service: `etcd --config-file …`, readiness via sd_notify under systemd. */
export function etcdServiceSpec(settings: EtcdHostsSettings, member: ResolvedHost): ServiceSpec {
  const files = memberFiles(settings, member);
  return {
    name: ETCD_SERVICE,
    description: `etcd member ${member.name} (pulumi-karmada)`,
    exec: [`${files.bin}/etcd`, `--config-file=${files.configFile}`],
    logFile: files.logFile,
    stateDir: files.stateDir,
    notify: true,
  };
}

/** The snapshot job as a periodic service running the backup script. */
export function etcdBackupServiceSpec(settings: EtcdHostsSettings, member: ResolvedHost): ServiceSpec {
  const files = memberFiles(settings, member);
  return {
    name: ETCD_BACKUP_SERVICE,
    description: `etcd snapshots of ${settings.name} (pulumi-karmada)`,
    exec: ["/bin/bash", `${files.libDir}/etcd-backup`],
    logFile: `${files.logFile.replace(/etcd\.log$/, "etcd-backup.log")}`,
    stateDir: `${files.stateDir}-backup`,
    intervalSeconds: settings.backup.intervalSeconds,
  };
}
