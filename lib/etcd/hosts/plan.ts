import { backupInstallScript, backupRemoveScript, snapshotScript } from "./backupScript";
import { certsScript } from "./certsScript";
import { clusterScript } from "./clusterScript";
import { EtcdClusterContext } from "./context";
import { installScript } from "./installScript";
import { memberFiles } from "./etcdConfigFile";
import { memberScript } from "./memberScript";
import { snapshotCheckScript } from "./restore";
import { EtcdHostsSettings } from "./settings";
import { teardownScript } from "./teardownScript";
import { clientEndpoints } from "./urls";

/**
 * One remote command of the deployment: the unit both the Pulumi wiring (a `remote.Command`) and the
 * test bed (an SSH session) execute. Scripts are raw bash; wrap with `remoteInvocation` to run.
 */
export interface PlannedCommand {
  /** Stable id, unique in the plan, also the suffix of the Pulumi resource name: `<member>-<step>`. */
  readonly id: string;
  /**
   * The id the same command had on the lost host this member replaces (`<lost host>-<step>`): the
   * wiring aliases it, so the command moves to the new host instead of being deleted on the lost one.
   */
  readonly replacesId?: string;
  /** Member (host) whose connection runs it. */
  readonly host: string;
  /** Script run on create and on update (every script is idempotent). */
  readonly create: string;
  /** Script run when the command is deleted. */
  readonly delete?: string;
  /** Stdin to feed: `member-pki` is the member's certificate bundle (secret). */
  readonly stdin?: "member-pki";
  /** Ids that must have completed before this runs. */
  readonly dependsOn: readonly string[];
  /** Its output may carry secrets: log nothing, mark stdout/stderr secret. */
  readonly secret: boolean;
}

/** Everything to deploy etcd on hosts, in dependency order. */
export interface EtcdHostsPlan {
  readonly commands: readonly PlannedCommand[];
  /** `https://<address>:<clientPort>` of every member. */
  readonly clientEndpoints: readonly string[];
  /** Member and script for an on-demand snapshot (also installed as `<libDir>/etcd-backup`). */
  readonly snapshot: { readonly host: string; readonly script: string };
}

/**
 * The command graph: per member `install` (preflight checks, binaries) and `pki` (certificates from
 * stdin) side by side, then `member`; every member's commands run at the same time as the others'
 * (a new cluster's members start together; joins and restarts take turns inside the member script,
 * see memberScript), then `cluster` (health, removal of members no longer listed), then the snapshot
 * job. Pure: the structure depends only on the member list.
 */
export function planEtcdHosts(settings: EtcdHostsSettings, context: EtcdClusterContext): EtcdHostsPlan {
  const commands: PlannedCommand[] = [];
  // a restore's snapshot is checked on every host before any host is changed (see snapshotCheckScript)
  const snapshotChecks = settings.restoreFrom ? settings.members.map((m) => `${m.name}-snapshot-check`) : [];
  if (settings.restoreFrom) {
    for (const member of settings.members) {
      commands.push({
        id: `${member.name}-snapshot-check`,
        host: member.name,
        create: snapshotCheckScript(member, memberFiles(settings, member), settings.restoreFrom),
        dependsOn: [],
        secret: false,
      });
    }
  }
  for (const member of settings.members) {
    const id = (step: string) => `${member.name}-${step}`;
    const replaced = (step: string) => (member.replaces ? { replacesId: `${member.replaces}-${step}` } : {});
    commands.push(
      {
        id: id("install"),
        ...replaced("install"),
        host: member.name,
        create: installScript(settings, member),
        dependsOn: snapshotChecks,
        secret: false,
      },
      {
        id: id("pki"),
        ...replaced("pki"),
        host: member.name,
        create: certsScript(settings, member),
        stdin: "member-pki",
        dependsOn: snapshotChecks,
        secret: true,
      },
      {
        id: id("member"),
        ...replaced("member"),
        host: member.name,
        create: memberScript(settings, member, context),
        delete: teardownScript(settings, member),
        dependsOn: [id("install"), id("pki")],
        secret: false,
      },
    );
  }
  const anchor = settings.members[0];
  commands.push({
    id: "cluster",
    host: anchor.name,
    create: clusterScript(settings, anchor),
    dependsOn: settings.members.map((m) => `${m.name}-member`),
    secret: false,
  });
  const backupHost = settings.members.find((m) => m.name === settings.backup.host) ?? anchor;
  if (settings.backup.enabled) {
    commands.push({
      id: "backup",
      host: backupHost.name,
      create: backupInstallScript(settings, backupHost),
      delete: backupRemoveScript(settings, backupHost),
      dependsOn: ["cluster"],
      secret: false,
    });
  }
  return {
    commands,
    clientEndpoints: clientEndpoints(settings),
    snapshot: { host: backupHost.name, script: snapshotScript(settings, backupHost) },
  };
}
