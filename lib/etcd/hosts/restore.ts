import { ResolvedArtifact } from "../../hosts/artifact";
import { rooted, shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { MemberFiles } from "./config";
import { EtcdClusterContext } from "./context";
import { EtcdHostsSettings } from "./settings";
import { initialCluster, peerUrl } from "./urls";

/**
 * Bash that initialises `${data_dir}` from the `restoreFrom` snapshot as a member of a NEW cluster
 * (the context's token, the bootstrap members as the fresh member list): fetch, verify checksum and
 * integrity, `etcdutl snapshot restore` (etcdctl on 3.4) into a scratch dir, then move `member/` in.
 * With `stopInPlace` (`restoreFrom.replaceData`), a member whose `${in_place}` is yes holds another
 * cluster's data: once the snapshot has passed its checks, it is stopped with `stopInPlace` and its data
 * dir moved aside (kept).
 */
export function restoreBody(
  settings: EtcdHostsSettings,
  member: ResolvedHost,
  files: MemberFiles,
  context: EtcdClusterContext,
  source: ResolvedArtifact,
  stopInPlace?: string,
): string {
  const fetch =
    source.kind === "url"
      ? [
          `curl -fsSL --retry 3 --connect-timeout 10 -o "\${snap}" ${shq(source.url)} || pk_fail ${shq(`download of snapshot ${source.url} failed`)}`,
        ]
      : [
          `src=${shq(rooted(member.root, source.path))}`,
          `[ -f "\${src}" ] || pk_fail "snapshot \${src} does not exist"`,
          `cp "\${src}" "\${snap}"`,
        ];
  const verify = source.sha256
    ? [
        `echo ${shq(`${source.sha256}  `)}"\${snap}" | sha256sum -c --status || pk_fail ${shq(`snapshot sha256 does not match ${source.sha256}`)}`,
      ]
    : [];
  return [
    `scratch="\${data_dir}.restoring"`,
    `rm -rf "\${scratch}"`,
    `mkdir -p ${shq(files.cacheDir)}`,
    `snap=$(mktemp ${shq(`${files.cacheDir}/restore.XXXXXX`)})`,
    ...fetch,
    ...verify,
    `pk_etcdutl snapshot status "\${snap}" >/dev/null || pk_fail "snapshot fails its integrity check"`,
    ...(stopInPlace === undefined ? [] : moveAsideInPlace(stopInPlace)),
    `if ! out=$(pk_etcdutl snapshot restore "\${snap}" --name ${shq(member.name)} \\`,
    `  --initial-cluster ${shq(initialCluster(settings, context.bootstrapMembers))} \\`,
    `  --initial-cluster-token ${shq(context.token)} \\`,
    `  --initial-advertise-peer-urls ${shq(peerUrl(settings, member))} \\`,
    `  --data-dir "\${scratch}" 2>&1); then`,
    `  pk_fail "etcd snapshot restore failed: $(printf '%s' "\${out}" | tail -n 1)"`,
    `fi`,
    `mkdir -p "\${data_dir}"`,
    `mv "\${scratch}/member" "\${data_dir}/member"`,
    `rm -rf "\${scratch}" "\${snap}"`,
    `echo "restored \${data_dir} from the snapshot as a member of a new cluster"`,
  ].join("\n");
}

/** Bash stopping a member that holds another cluster's data and moving that data aside, never erasing it. */
function moveAsideInPlace(stop: string): string[] {
  return [
    `if [ "\${in_place}" = yes ]; then`,
    ...stop.split("\n").map((line) => `  ${line}`),
    `  aside="\${data_dir}.before-restore-$(date -u +%Y%m%dT%H%M%SZ)"`,
    `  mv "\${data_dir}" "\${aside}"`,
    `  echo "stopped etcd; the data of cluster \${data_token} moved aside to \${aside} (kept)"`,
    `fi`,
  ];
}
