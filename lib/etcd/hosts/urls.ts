import { hostPort, ResolvedHost } from "../../hosts/spec";
import { EtcdHostsSettings } from "./settings";

/** Client URL of a member: `https://<address>:<clientPort>`. */
export function clientUrl(settings: EtcdHostsSettings, member: ResolvedHost): string {
  return `https://${hostPort(member.address, settings.clientPort)}`;
}

/** Peer URL of a member: `https://<address>:<peerPort>`. */
export function peerUrl(settings: EtcdHostsSettings, member: ResolvedHost): string {
  return `https://${hostPort(member.address, settings.peerPort)}`;
}

/** Client URLs of all members, in host order (what the API server's `--etcd-servers` gets). */
export function clientEndpoints(settings: EtcdHostsSettings): string[] {
  return settings.members.map((m) => clientUrl(settings, m));
}

/** `name=peerURL,…` for the given member names (in host order), as etcd's `initial-cluster`. */
export function initialCluster(settings: EtcdHostsSettings, names: readonly string[]): string {
  return settings.members
    .filter((m) => names.includes(m.name))
    .map((m) => `${m.name}=${peerUrl(settings, m)}`)
    .join(",");
}
