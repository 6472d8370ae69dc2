import { PRIVATE_FILE_FUNCTIONS, renderScript } from "../../hosts/script";
import { serviceCommands, writeFileIfChanged } from "../../hosts/serviceRunner";
import { rooted, shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { memberFiles } from "./etcdConfigFile";
import { etcdFunctions } from "./etcdctl";
import { etcdBackupServiceSpec } from "./service";
import { EtcdHostsSettings } from "./settings";
import { clientUrl } from "./urls";

/** Snapshot files are `etcd-snapshot-<UTC time>.db` with a `.sha256` beside them. */
const SNAPSHOT_PREFIX = "etcd-snapshot-";

/**
 * One snapshot: from the first healthy member (local first), integrity-checked with `snapshot status`,
 * checksummed, optionally uploaded, recorded in `latest`, and older snapshots pruned to `retain`.
 * Run by the timer / supervisor loop, and on demand. A snapshot holds everything Karmada stores, its
 * Secrets included: the backup dir is made 0700 and every file in it 0600, owned by the user the job
 * runs as (see `PRIVATE_FILE_FUNCTIONS`), so `backup.dir` must be a directory of its own.
 */
export function snapshotScript(settings: EtcdHostsSettings, host: ResolvedHost): string {
  const endpoints = [host, ...settings.members.filter((m) => m.name !== host.name)].map((m) =>
    clientUrl(settings, m),
  );
  const dir = rooted(host.root, settings.backup.dir);
  const upload = settings.backup.uploadCommand;
  return renderScript({
    host: host.name,
    purpose: "etcd snapshot",
    functions: [etcdFunctions(memberFiles(settings, host)), PRIVATE_FILE_FUNCTIONS],
    steps: [
      {
        name: "pick-member",
        body: `source_ep=""
for ep in ${endpoints.map(shq).join(" ")}; do
  if pk_etcdctl --endpoints="\${ep}" endpoint health >/dev/null 2>&1; then source_ep=\${ep}; break; fi
done
[ -n "\${source_ep}" ] || pk_fail "no healthy member to snapshot from"`,
      },
      {
        name: "snapshot-save",
        body: `dir=${shq(dir)}
pk_private_dir "\${dir}" || pk_fail "cannot create \${dir}"
name="${SNAPSHOT_PREFIX}$(date -u +%Y%m%dT%H%M%SZ).db"
part="\${dir}/.\${name}.part"
pk_etcdctl --endpoints="\${source_ep}" snapshot save "\${part}" >/dev/null 2>&1 || { rm -f "\${part}"; pk_fail "snapshot save from \${source_ep} failed"; }`,
      },
      {
        name: "verify",
        body: `status=$(pk_etcdutl snapshot status "\${part}" -w simple 2>&1) || { rm -f "\${part}"; pk_fail "snapshot fails its integrity check: \${status}"; }
sum=$(sha256sum "\${part}" | cut -d' ' -f1)
printf '%s  %s\\n' "\${sum}" "\${name}" > "\${dir}/\${name}.sha256"
pk_owned_file 0600 "\${part}" "\${dir}/\${name}.sha256"
mv -f "\${part}" "\${dir}/\${name}"`,
      },
      {
        name: "upload",
        body: upload
          ? `SNAPSHOT_FILE="\${dir}/\${name}" SNAPSHOT_SHA256="\${sum}" bash -c ${shq(upload)} || pk_fail "upload command failed"`
          : `echo "no upload command configured"`,
      },
      {
        name: "latest",
        body: `printf '%s\\n' "\${name}" > "\${dir}/latest.tmp"
pk_owned_file 0600 "\${dir}/latest.tmp"
mv -f "\${dir}/latest.tmp" "\${dir}/latest"`,
      },
      {
        name: "retention",
        body: `find "\${dir}" -maxdepth 1 -type f -name '${SNAPSHOT_PREFIX}*.db' | sort -r | tail -n +${settings.backup.retain + 1} | while read -r old; do
  rm -f "\${old}" "\${old}.sha256"
done
echo "snapshot \${dir}/\${name} sha256 \${sum} (revision/hash/keys/size: \${status})"`,
      },
    ],
  });
}

/** Installs the snapshot script and its timer (systemd) or periodic supervisor loop, and starts it. */
export function backupInstallScript(settings: EtcdHostsSettings, host: ResolvedHost): string {
  const files = memberFiles(settings, host);
  const service = serviceCommands(settings.serviceManager, etcdBackupServiceSpec(settings, host), host.root);
  const path = `${files.libDir}/etcd-backup`;
  const script = snapshotScript(settings, host);
  return renderScript({
    host: host.name,
    purpose: "install etcd snapshot job",
    steps: [
      {
        name: "write-snapshot-script",
        body: `${writeFileIfChanged(path, script, "0700")}\necho "snapshot script: ${path}"`,
      },
      {
        name: "schedule",
        body: `${service.install}
if ${service.isActive} && [ "\${service_changed}" = yes ]; then
${service.restart}
else
${service.start}
fi
echo "snapshots every ${settings.backup.intervalSeconds}s into ${rooted(host.root, settings.backup.dir)}, keeping ${settings.backup.retain}"`,
      },
    ],
  });
}

/** Stops and removes the snapshot job; snapshots stay. */
export function backupRemoveScript(settings: EtcdHostsSettings, host: ResolvedHost): string {
  const service = serviceCommands(settings.serviceManager, etcdBackupServiceSpec(settings, host), host.root);
  return renderScript({
    host: host.name,
    purpose: "remove etcd snapshot job",
    steps: [{ name: "unschedule", body: `${service.remove}\necho "snapshot job removed; snapshots kept"` }],
  });
}
