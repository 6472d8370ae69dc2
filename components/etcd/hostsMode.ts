/**
 * Hosts mode of EtcdCluster: etcd installed over SSH on the given machines, one `remote.Command` per
 * planned step (lib/etcd/hosts/plan.ts). The lead wires this into the EtcdCluster component.
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import { createHash } from "crypto";
import { EtcdClusterContext } from "../../lib/etcd/hosts/context";
import { planEtcdHosts, PlannedCommand } from "../../lib/etcd/hosts/plan";
import { pkiBundle } from "../../lib/etcd/hosts/pkiFiles";
import { EtcdHostsSettings } from "../../lib/etcd/hosts/settings";
import { hostConnection, SshConnection } from "../../lib/hosts/connection";
import { remoteInvocation } from "../../lib/hosts/script";
import { rooted } from "../../lib/hosts/shell";
import { check } from "../../lib/validation/errors";

/** Certificate and key of one member's serving (client port) and peer identities. */
interface EtcdMemberCertificates {
  serverCert: pulumi.Input<string>;
  serverKey: pulumi.Input<string>;
  peerCert: pulumi.Input<string>;
  peerKey: pulumi.Input<string>;
}

/**
 * What hosts mode needs from the PKI (lib/pki issues it): the etcd CA, per-member server/peer pairs
 * (SANs: the member's address and name), and a client pair our scripts use for etcdctl (health,
 * membership, snapshots). Keys must be secret Outputs.
 */
export interface EtcdHostsPki {
  caCert: pulumi.Input<string>;
  /** Keyed by host name. */
  members: Record<string, EtcdMemberCertificates>;
  client: { cert: pulumi.Input<string>; key: pulumi.Input<string> };
}

/** What the deployment gives back. */
export interface EtcdHostsDeployment {
  /** `https://<address>:<clientPort>` per member, for `--etcd-servers`. */
  clientEndpoints: string[];
  /** The `initial-cluster-token` of the running cluster. */
  clusterToken: pulumi.Output<string>;
  /** Completes when every member is healthy and the membership matches the host list: depend on it. */
  ready: command.remote.Command;
  /** Every remote command by plan id (`<member>-install`, `<member>-pki`, `<member>-member`, `cluster`, `backup`). */
  commands: Record<string, command.remote.Command>;
  /** Run `bash <path>` on `host` for an on-demand snapshot (when the backup job is enabled). */
  snapshotCommand: { host: string; path: string };
}

/**
 * Inputs of @pulumi/command ≥ 1.0's `remote.Command` we set. `logging` and `addPreviousOutputInEnv` are
 * absent from the pinned 4.5.0 typings (an early preview release), hence this local shape.
 */
export type RemoteCommandInputs = command.remote.CommandArgs & {
  logging?: "stdout" | "stderr" | "stdoutAndStderr" | "none";
  addPreviousOutputInEnv?: boolean;
};

/**
 * Inputs of one planned command: `update` = `create` (scripts are idempotent, so a changed script
 * re-runs in place), secret-bearing commands log nothing, previous output never goes into the env.
 */
export function remoteCommandInputs(
  planned: PlannedCommand,
  connection: SshConnection,
  script: pulumi.Input<string>,
  deleteScript: pulumi.Input<string> | undefined,
  stdin: pulumi.Input<string> | undefined,
): RemoteCommandInputs {
  return {
    connection,
    create: script,
    update: script,
    delete: deleteScript,
    stdin,
    logging: planned.secret ? "none" : "stdoutAndStderr",
    addPreviousOutputInEnv: false,
  };
}

/** The member's certificate bundle for stdin: a secret Output. */
function memberBundle(pki: EtcdHostsPki, member: string): pulumi.Output<string> {
  const m = pki.members[member];
  return pulumi.secret(
    pulumi
      .all([pki.caCert, m.serverCert, m.serverKey, m.peerCert, m.peerKey, pki.client.cert, pki.client.key])
      .apply(([ca, serverCrt, serverKey, peerCrt, peerKey, clientCrt, clientKey]) =>
        pkiBundle({
          "ca.crt": ca,
          "server.crt": serverCrt,
          "server.key": serverKey,
          "peer.crt": peerCrt,
          "peer.key": peerKey,
          "client.crt": clientCrt,
          "client.key": clientKey,
        }),
      ),
  );
}

/**
 * Registers the commands that install, bootstrap, scale, back up and (with `restoreFrom`) restore etcd
 * on `args.hosts`. Membership history lives in a RandomString whose `keepers.members` is frozen with
 * `ignoreChanges`: it records which hosts may bootstrap, so hosts added later always join. A restore
 * gets a new record (its name carries the snapshot's identity), hence a new token and member list.
 * `settings` are the resolved ones (resolveEtcdHostsSettings, run by the component's plan); throws
 * ConfigError for certificates missing for a host before registering anything.
 */
export function deployEtcdOnHosts(
  parent: pulumi.Resource,
  name: string,
  settings: EtcdHostsSettings,
  pki: EtcdHostsPki,
): EtcdHostsDeployment {
  for (const member of settings.members) {
    check(
      pki.members[member.name] !== undefined,
      `pki.members.${member.name}`,
      "no certificates for this host",
    );
  }
  const names = settings.members.map((m) => m.name);
  const restoreId = settings.restoreFrom
    ? `-r${createHash("sha256").update(JSON.stringify(settings.restoreFrom)).digest("hex").slice(0, 8)}`
    : "";
  const record = new random.RandomString(
    `${name}-cluster${restoreId}`,
    { length: 12, special: false, upper: false, keepers: { members: names.join(",") } },
    { parent, ignoreChanges: ["keepers.members"] },
  );
  const context: pulumi.Output<EtcdClusterContext> = pulumi
    .all([record.result, record.keepers])
    .apply(([suffix, keepers]) => ({
      token: `${name}-${suffix}`,
      bootstrapMembers: (keepers?.members ?? names.join(",")).split(","),
    }));
  // The graph's shape depends only on the host list; the context only fills in script text.
  const shape = planEtcdHosts(settings, { token: "", bootstrapMembers: names });
  const plan = context.apply((ctx) => planEtcdHosts(settings, ctx));
  const hosts = new Map(settings.members.map((m) => [m.name, m]));
  const commands: Record<string, command.remote.Command> = {};
  shape.commands.forEach((planned: PlannedCommand, index) => {
    const script = plan.apply((p) => remoteInvocation(p.commands[index].create));
    const inputs = remoteCommandInputs(
      planned,
      hostConnection(hosts.get(planned.host)!),
      script,
      planned.delete ? plan.apply((p) => remoteInvocation(p.commands[index].delete!)) : undefined,
      planned.stdin === "member-pki" ? memberBundle(pki, planned.host) : undefined,
    );
    commands[planned.id] = new command.remote.Command(`${name}-${planned.id}`, inputs, {
      parent,
      // a host that replaces a lost one takes over its commands: nothing is deleted on the lost machine
      aliases: planned.replacesId ? [{ name: `${name}-${planned.replacesId}` }] : [],
      dependsOn: planned.dependsOn.map((id) => commands[id]),
      // Replacement must stop the old member before the new one starts (create-before-delete would
      // let the old delete undo the new create).
      deleteBeforeReplace: true,
      additionalSecretOutputs: planned.secret ? ["stdout", "stderr"] : [],
    });
  });
  return {
    clientEndpoints: [...shape.clientEndpoints],
    clusterToken: context.apply((c) => c.token),
    ready: commands.cluster,
    commands,
    snapshotCommand: {
      host: settings.backup.host,
      path: rooted(hosts.get(settings.backup.host)!.root, `${settings.paths.libDir}/etcd-backup`),
    },
  };
}
