import { ResolvedArtifact } from "../../hosts/artifact";
import { renderScript } from "../../hosts/script";
import { rooted, shq } from "../../hosts/shell";
import { ResolvedHost } from "../../hosts/spec";
import { MemberFiles } from "./etcdConfigFile";
import { EtcdClusterContext } from "./context";
import { EtcdHostsSettings } from "./settings";
import { initialCluster, peerUrl } from "./urls";

/**
 * Where a URL snapshot is kept once downloaded and verified: the check fetches it, the restore reuses it
 * (one download per host).
 */
const downloadedSnapshot = (files: MemberFiles, sha256: string) => `${files.cacheDir}/restore-${sha256}.db`;

/**
 * Bytes 16–19 of an etcd snapshot: bbolt's magic 0xED0CDAED (little-endian) in the first meta page,
 * after its 16-byte page header. A tarball, a directory or a text file does not carry it.
 */
const BBOLT_MAGIC = "ed da 0c ed";

/**
 * Bash checking, before any host is changed, that `restoreFrom` names an etcd snapshot this host can
 * read: a regular, non-empty file (downloaded and kept for the restore when it is a URL), matching
 * `sha256` when given, with bbolt's magic where a snapshot has it (`etcdutl snapshot status` runs later,
 * once installed, before anything is restored). Every host's install and member commands wait for every
 * host's check, so a bad source stops the `up` with nothing touched.
 */
export function snapshotCheckScript(
  member: ResolvedHost,
  files: MemberFiles,
  source: ResolvedArtifact,
): string {
  const fetch =
    source.kind === "url"
      ? [
          `snap=${shq(downloadedSnapshot(files, source.sha256))}`,
          `mkdir -p ${shq(files.cacheDir)}`,
          `if [ ! -f "\${snap}" ]; then`,
          `  part="\${snap}.part"`,
          `  curl -fsSL --retry 3 --connect-timeout 10 -o "\${part}" ${shq(source.url)} || { rm -f "\${part}"; pk_fail ${shq(`download of snapshot ${source.url} failed`)}; }`,
          `  echo ${shq(`${source.sha256}  `)}"\${part}" | sha256sum -c --status || { rm -f "\${part}"; pk_fail ${shq(`snapshot ${source.url} does not match sha256 ${source.sha256}`)}; }`,
          `  mv "\${part}" "\${snap}"`,
          `fi`,
        ]
      : [
          `snap=${shq(rooted(member.root, source.path))}`,
          `[ -e "\${snap}" ] || pk_fail ${shq(`restoreFrom.path: snapshot ${source.path} does not exist on ${member.name}`)}`,
          `[ -f "\${snap}" ] || pk_fail ${shq(`restoreFrom.path: ${source.path} on ${member.name} is not a file (an etcd snapshot is one file, as etcdctl snapshot save writes it)`)}`,
          ...(source.sha256
            ? [
                `echo ${shq(`${source.sha256}  `)}"\${snap}" | sha256sum -c --status || pk_fail ${shq(`restoreFrom.sha256: ${source.path} on ${member.name} does not match ${source.sha256}`)}`,
              ]
            : []),
        ];
  const where = source.kind === "url" ? source.url : source.path;
  return renderScript({
    host: member.name,
    purpose: `check the snapshot to restore (${where})`,
    functions: [],
    steps: [
      {
        name: "check-snapshot",
        body: [
          ...fetch,
          `[ -s "\${snap}" ] || pk_fail ${shq(`restoreFrom: ${where} is empty`)}`,
          `magic=$(od -An -tx1 -j16 -N4 "\${snap}" | tr -s ' ' | sed 's/^ //;s/ $//')`,
          `[ "\${magic}" = ${shq(BBOLT_MAGIC)} ] || pk_fail ${shq(`restoreFrom: ${where} is not an etcd snapshot (no bbolt database header); give a file etcdctl snapshot save wrote`)}`,
          `echo "snapshot $(stat -c %s "\${snap}") bytes: an etcd snapshot"`,
        ].join("\n"),
      },
    ],
  });
}

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
          // the check downloaded and verified it; fetch again only when it was cleaned up since
          `kept=${shq(downloadedSnapshot(files, source.sha256))}`,
          `if [ -f "\${kept}" ]; then cp "\${kept}" "\${snap}"; else`,
          `  curl -fsSL --retry 3 --connect-timeout 10 -o "\${snap}" ${shq(source.url)} || pk_fail ${shq(`download of snapshot ${source.url} failed`)}`,
          `fi`,
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
    ...(source.kind === "url" ? [`rm -f ${shq(downloadedSnapshot(files, source.sha256))}`] : []),
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
