import { ResolvedHost } from "../../hosts/spec";
import { ControlPlaneComponent } from "../flags-ports";
import { ControlPlaneSettings } from "../settings";
import { installScript, uninstallScript } from "./installScript";
import { pkiRemoveScript, pkiScript } from "./pkiScript";
import { preflightScript } from "./preflightScript";
import { readyScript, serviceRemoveScript, serviceScript } from "./serviceScript";
import { ControlPlaneHostsSettings, ControlPlanePhase } from "./settings";
import { componentPhase } from "./resolve";

/** What a command does. */
type HostCommandKind = "preflight" | "install" | "pki" | "service" | "ready";

/**
 * One remote command of a control plane on hosts; the Pulumi wiring turns each into a `remote.Command`
 * named `<control plane>-<id>`, the test bed runs the same scripts over SSH.
 */
export interface ControlPlaneHostCommand {
  /**
   * Stable id, unique in the plan: `<host>-preflight`, `<host>-install-<component>`,
   * `<host>-pki-<component>`, `<host>-<component>` (the service), `<host>-ready-<component>`.
   */
  readonly id: string;
  /**
   * The id the same command had on the lost host this one replaces (`replaces` of the host): the
   * wiring aliases it, so the command moves here instead of being deleted on the lost machine.
   */
  readonly replacesId?: string;
  readonly host: string;
  readonly kind: HostCommandKind;
  /** The component it installs, configures, runs or waits for (absent for preflight). */
  readonly component?: ControlPlaneComponent;
  /**
   * When service commands may run, relative to the objects inside karmada-apiserver: `core` first
   * (after etcd), `aggregated` after the CRDs, `controllers` after every Karmada-side object.
   * Preflight, install and pki commands have no such prerequisite; ready commands follow their service.
   */
  readonly phase?: ControlPlanePhase;
  /** Script run on create and on update (every script is idempotent). */
  readonly create: string;
  /** Script run when the command is deleted. */
  readonly delete?: string;
  /** Stdin carries the component's certificates, keys and kubeconfig (secret). */
  readonly secretStdin: boolean;
  /** Ids of commands of this plan that must complete first. */
  readonly dependsOn: readonly string[];
}

/** Ids of a host's commands. */
export const commandIds = {
  preflight: (host: string) => `${host}-preflight`,
  install: (host: string, component: ControlPlaneComponent) => `${host}-install-${component}`,
  pki: (host: string, component: ControlPlaneComponent) => `${host}-pki-${component}`,
  service: (host: string, component: ControlPlaneComponent) => `${host}-${component}`,
  ready: (host: string, component: ControlPlaneComponent) => `${host}-ready-${component}`,
};

/**
 * The command graph of a control plane on hosts. Per host: preflight → per component install and pki
 * (in parallel) → service → ready, karmada-apiserver's first (the host's other components start once
 * it is ready). A component's services roll host by host in `rollingOrder` — each service command
 * waits for the previous host's — and a service command that restarts a process (or finds it
 * stopped) waits until it is healthy again, so a version or flag change restarts one host at a time,
 * and a change to one component re-runs only that component's commands. A first start waits for
 * nothing, so every host starts at once; its `ready` command waits for health, and everything that
 * needs the component depends on that one. `filesFingerprint(host, component)` is the fingerprint of
 * the component's certificates (see `publicFilesFingerprint`).
 * Pure: the structure depends only on the host list and the enabled components.
 */
export function planControlPlaneHosts(
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  filesFingerprint: (host: string, component: ControlPlaneComponent) => string,
): ControlPlaneHostCommand[] {
  const commands: ControlPlaneHostCommand[] = [];
  const previous = new Map<ControlPlaneComponent, string>();
  const byHost = (host: ResolvedHost) => {
    const preflight = commandIds.preflight(host.name);
    /** `{ replacesId }` of a command whose id `of` gives for a host name, when this host replaces one. */
    const replaced = (of: (hostName: string) => string) =>
      host.replaces ? { replacesId: of(host.replaces) } : {};
    commands.push({
      id: preflight,
      ...replaced(commandIds.preflight),
      host: host.name,
      kind: "preflight",
      create: preflightScript(cp, settings, host),
      secretStdin: false,
      dependsOn: [],
    });
    for (const component of settings.components) {
      const install = commandIds.install(host.name, component);
      const pki = commandIds.pki(host.name, component);
      const service = commandIds.service(host.name, component);
      const ready = commandIds.ready(host.name, component);
      commands.push(
        {
          id: install,
          ...replaced((h) => commandIds.install(h, component)),
          host: host.name,
          kind: "install",
          component,
          create: installScript(settings, host, component),
          delete: uninstallScript(settings, host, component),
          secretStdin: false,
          dependsOn: [preflight],
        },
        {
          id: pki,
          ...replaced((h) => commandIds.pki(h, component)),
          host: host.name,
          kind: "pki",
          component,
          create: pkiScript(settings, host, component),
          delete: pkiRemoveScript(settings, host, component),
          secretStdin: true,
          dependsOn: [preflight],
        },
        {
          id: service,
          ...replaced((h) => commandIds.service(h, component)),
          host: host.name,
          kind: "service",
          component,
          phase: componentPhase(component),
          create: serviceScript(cp, settings, host, component, filesFingerprint(host.name, component)),
          delete: serviceRemoveScript(cp, settings, host, component),
          secretStdin: false,
          dependsOn: [
            install,
            pki,
            // the host's components talk to the host's karmada-apiserver
            ...(component === "karmada-apiserver" ? [] : [commandIds.ready(host.name, "karmada-apiserver")]),
            ...(previous.has(component) ? [previous.get(component)!] : []),
          ],
        },
        {
          id: ready,
          ...replaced((h) => commandIds.ready(h, component)),
          host: host.name,
          kind: "ready",
          component,
          create: readyScript(cp, settings, host, component),
          secretStdin: false,
          dependsOn: [service],
        },
      );
      // a replacement's service is its first start there, which does not wait for health: the machines
      // that kept serving wait for its ready command before they restart
      previous.set(component, host.replaces ? ready : service);
    }
  };
  rollingOrder(settings.machines).forEach(byHost);
  return commands;
}

/**
 * The order in which a component's services restart across the machines: machines that replace a lost
 * one (`replaces`) first, then the others in `machines` order. A replacement serves nothing yet, so
 * starting it first — the next machine waiting for its ready command, not just its service command —
 * means a machine that kept serving restarts (its serving certificate now names the new address) only
 * once the replacement is healthy: an API server stays up behind the VIP throughout.
 */
export function rollingOrder(machines: readonly ResolvedHost[]): ResolvedHost[] {
  return [...machines.filter((m) => m.replaces), ...machines.filter((m) => !m.replaces)];
}
