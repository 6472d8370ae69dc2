import { TEST_SSH_KEY } from "../sshKey";
import { EtcdHostsPlan, planEtcdHosts } from "../../lib/etcd/hosts/plan";
import { EtcdHostsArgs } from "../../lib/etcd/hosts/config";
import { EtcdHostsSettings } from "../../lib/etcd/hosts/settings";
import { resolveEtcdHostsSettings } from "../../lib/etcd/hosts/resolve";
import { HostSpec } from "../../lib/hosts/spec";

/** A private key that must never appear in any generated script. */
export const SECRET_KEY = TEST_SSH_KEY;

/** `count` hosts 10.0.0.1… (addresses only appear in generated text: nothing connects to them). */
export function hosts(count: number, root?: (i: number) => string): HostSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `etcd-${i + 1}`,
    address: `10.0.0.${i + 1}`,
    privateKey: SECRET_KEY,
    ...(root ? { root: root(i) } : {}),
  }));
}

/** Settings with the given extras. */
export function settingsWith(extra: Partial<EtcdHostsArgs> = {}, count = 3): EtcdHostsSettings {
  return resolveEtcdHostsSettings("etcd", { hosts: hosts(count), ...extra });
}

/** Plans covering every script variant: both runners, URL and path artifacts, restore, upload. */
export function variantPlans(): { label: string; settings: EtcdHostsSettings; plan: EtcdHostsPlan }[] {
  const sha = "a".repeat(64);
  const variants: [string, Partial<EtcdHostsArgs>][] = [
    ["systemd, default upstream tarball", {}],
    [
      "systemd, mirror url, upload, restore in place from url",
      {
        artifact: { url: "https://mirror.example/etcd.tgz", sha256: sha },
        backup: { uploadCommand: 'aws s3 cp "$SNAPSHOT_FILE" s3://b/' },
        restoreFrom: { url: "https://mirror.example/snap.db", sha256: sha, replaceData: true },
      },
    ],
    [
      "supervisor, path artifact, restore from path",
      {
        serviceManager: "supervisor",
        hosts: hosts(3, (i) => `/srv/host${i}`),
        artifact: { path: "/opt/etcd" },
        restoreFrom: { path: "/var/backups/etcd/x.db" },
      },
    ],
    [
      "supervisor, tarball path with checksum, no backup",
      {
        serviceManager: "supervisor",
        artifact: { path: "/opt/etcd.tar.gz", sha256: sha },
        backup: { enabled: false },
      },
    ],
  ];
  return variants.map(([label, extra]) => {
    const settings = settingsWith(extra);
    return {
      label,
      settings,
      plan: planEtcdHosts(settings, { token: "etcd-abc", bootstrapMembers: ["etcd-1", "etcd-2", "etcd-3"] }),
    };
  });
}

/** Every script of a plan, labelled. */
export function scriptsOf(plan: EtcdHostsPlan): { label: string; script: string }[] {
  return [
    ...plan.commands.flatMap((c) => [
      { label: `${c.id} create`, script: c.create },
      ...(c.delete ? [{ label: `${c.id} delete`, script: c.delete }] : []),
    ]),
    { label: "snapshot", script: plan.snapshot.script },
  ];
}
