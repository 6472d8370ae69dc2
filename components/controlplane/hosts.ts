/**
 * Hosts mode of KarmadaControlPlane: every enabled component as a service on each machine, one
 * `remote.Command` per planned step (lib/controlplane/hosts/plan.ts), wired into the install order:
 * etcd → karmada-apiserver and kube-controller-manager (ready on every host) → [Karmada provider,
 * namespaces, CRDs] → aggregated API servers → [APIServices, webhooks, RBAC] → controllers and
 * karmada-webhook. Changes roll host by host; a first start runs on every host at once. `destroy` runs
 * it backwards, so garbage collection and namespace finalization (kube-controller-manager) outlive
 * every object inside Karmada.
 */
import * as command from "@pulumi/command";
import * as pulumi from "@pulumi/pulumi";
import { ControlPlaneComponent } from "../../lib/controlplane/flags-ports";
import {
  componentStopGraceSeconds,
  ControlPlaneHostCommand,
  ControlPlaneHostsSettings,
  ControlPlanePhase,
  commandIds,
  componentPhase,
  planControlPlaneHosts,
  plannedComponentService,
  probeScript,
  repairScript,
  rollingOrder,
  serviceScript,
} from "../../lib/controlplane/hosts";
import { ControlPlaneSettings } from "../../lib/controlplane/settings";
import { hostConnection } from "../../lib/hosts/connection";
import { describeService } from "../../lib/hosts/drift";
import { remoteInvocation } from "../../lib/hosts/script";
import { PkiFiles } from "./credentials";
import { DynamicProviderHost } from "../dynamicResource";
import { ServiceDrift } from "./drift";
import { KarmadaApiResources } from "./karmadaApi";
import { InstallGraph } from "./installGraph";
import { HOSTS_INSTALL_ORDER, InstallPhase } from "../../lib/controlplane/installOrder";
import { HostComponentFiles, hostComponentFiles } from "./hostsFiles";

/** Resources to wait for, known now or once the Karmada-side objects are registered. */
type Prerequisites = pulumi.Resource[] | Promise<pulumi.Resource[]>;

/**
 * Registers the Karmada provider and the objects inside karmada-apiserver, once the commands are: the
 * graph holds the core commands (karmada-apiserver and kube-controller-manager ready on every host: the
 * Karmada provider depends on them) and the aggregated API servers' (the APIServices depend on them).
 */
export type KarmadaSide = (graph: InstallGraph) => KarmadaApiResources;

/** The install phase of each phase of the services (lib/controlplane/installOrder.ts, HOSTS_INSTALL_ORDER). */
const INSTALL_PHASE: Record<ControlPlanePhase, InstallPhase> = {
  core: "karmada-apiserver",
  aggregated: "aggregated-apiserver",
  controllers: "controllers",
};

/** The commands of a control plane on hosts. */
export interface ControlPlaneOnHosts {
  /**
   * Every command by plan id (`cp1-preflight`, `cp1-install-karmada-scheduler`, `cp1-karmada-scheduler`,
   * `cp1-ready-karmada-scheduler`, …).
   */
  readonly commands: Readonly<Record<string, command.remote.Command>>;
  /** The ready commands of each phase: each completes once its component is healthy on its host. */
  readonly services: Readonly<Record<ControlPlanePhase, command.remote.Command[]>>;
  /**
   * The drift check of each component on each host by id (`cp1-drift-karmada-scheduler`): what a
   * refresh finds running there, repaired by the next `up` (components/controlplane/drift.ts).
   */
  readonly drift: Readonly<Record<string, ServiceDrift>>;
  /** What `karmadaSide` registered. */
  readonly karmadaApi: KarmadaApiResources;
}

/** Id of a component's drift check on a host (its resource is `<control plane>-<id>`). */
const driftId = (host: string, component: ControlPlaneComponent): string => `${host}-drift-${component}`;

/**
 * Inputs of a `remote.Command`. No `update`: a changed input re-runs `create` in place (the provider's
 * rule when `update` is absent; only `triggers` replace), and every script is idempotent, so nothing
 * on the host is deleted first. Giving the same script as `update` would store it twice more in the
 * state, which the engine writes after every step. The previous run's output is not handed to the next
 * one: scripts decide from what they find on the host.
 */
function hostCommandArgs(
  connection: command.remote.CommandArgs["connection"],
  create: pulumi.Input<string>,
  remove: pulumi.Input<string> | undefined,
  stdin: pulumi.Input<string> | undefined,
): command.remote.CommandArgs {
  return { connection, create, delete: remove, stdin, addPreviousOutputInEnv: false };
}

const fileKey = (host: string, component: ControlPlaneComponent) => `${host}/${component}`;

/**
 * Registers the commands and, through `karmadaSide`, the objects inside karmada-apiserver, in the
 * order: etcd → karmada-apiserver, kube-controller-manager → CRDs → aggregated API servers → every
 * Karmada-side object → controllers; what follows a phase waits for its ready commands. The graph's
 * shape depends only on the host list and the enabled components; certificate fingerprints only fill
 * in script text, so a reissued certificate updates the commands of the component that uses it and
 * nothing else.
 */
export function deployControlPlaneOnHosts(
  name: string,
  parent: pulumi.Resource,
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  files: PkiFiles,
  etcd: pulumi.Resource[],
  karmadaSide: KarmadaSide,
): ControlPlaneOnHosts {
  const graph = new InstallGraph(HOSTS_INSTALL_ORDER);
  graph.done("etcd", etcd);
  const componentFiles = new Map<string, HostComponentFiles>();
  for (const host of settings.machines) {
    for (const component of settings.components) {
      componentFiles.set(fileKey(host.name, component), hostComponentFiles(cp, host, component, files));
    }
  }
  // The plan gives the graph; service scripts are rendered per command from their own component's
  // fingerprint only, so a reissued certificate leaves every other script known and unchanged in
  // previews.
  const plan = planControlPlaneHosts(cp, settings, () => "");
  const hosts = new Map(settings.machines.map((m) => [m.name, m]));
  const commands: Record<string, command.remote.Command> = {};
  const services: Record<ControlPlanePhase, command.remote.Command[]> = {
    core: [],
    aggregated: [],
    controllers: [],
  };

  // a service command waits for its own host's steps and for the phases its phase comes after (on
  // every host: read once all are registered)
  const prerequisites = (planned: ControlPlaneHostCommand): Prerequisites => {
    const own = planned.dependsOn.map((id) => commands[id]);
    if (!planned.phase) return own;
    return graph.awaitedBefore(INSTALL_PHASE[planned.phase]).then((before) => [...own, ...before]);
  };

  plan.forEach((planned) => {
    const host = hosts.get(planned.host)!;
    const own = planned.component ? componentFiles.get(fileKey(planned.host, planned.component)) : undefined;
    const create =
      planned.kind === "service"
        ? own!.fingerprint.apply((fp) =>
            remoteInvocation(serviceScript(cp, settings, host, planned.component!, fp)),
          )
        : remoteInvocation(planned.create);
    const created = new command.remote.Command(
      `${name}-${planned.id}`,
      hostCommandArgs(
        hostConnection(host),
        create,
        planned.delete ? remoteInvocation(planned.delete) : undefined,
        planned.secretStdin ? own!.bundle : undefined,
      ),
      {
        parent,
        // a host that replaces a lost one takes over its commands: nothing is deleted on the lost machine
        aliases: planned.replacesId ? [{ name: `${name}-${planned.replacesId}` }] : [],
        dependsOn: prerequisites(planned),
        // the old delete (stop the service, remove files) must not run after the new create
        deleteBeforeReplace: true,
        additionalSecretOutputs: planned.secretStdin ? ["stdout", "stderr"] : [],
      },
    );
    commands[planned.id] = created;
    if (planned.kind === "ready") services[componentPhase(planned.component!)].push(created);
  });
  graph.done("karmada-apiserver", services.core);
  graph.done("aggregated-apiserver", services.aggregated);
  graph.done("controllers", services.controllers);
  const karmadaApi = karmadaSide(graph);
  graph.assertComplete();
  return { commands, services, drift: registerDriftChecks(name, parent, cp, settings, commands), karmadaApi };
}

/**
 * One drift check per component per host, after the component's ready command; a component's checks
 * chain in the services' rolling order, so repairs after a refresh restart one host at a time.
 */
function registerDriftChecks(
  name: string,
  parent: pulumi.Resource,
  cp: ControlPlaneSettings,
  settings: ControlPlaneHostsSettings,
  commands: Readonly<Record<string, command.remote.Command>>,
): Record<string, ServiceDrift> {
  const drift: Record<string, ServiceDrift> = {};
  const previous = new Map<ControlPlaneComponent, ServiceDrift>();
  const provider = new DynamicProviderHost(`${name}-drift`, { parent });
  for (const host of rollingOrder(settings.machines)) {
    for (const component of settings.components) {
      const id = driftId(host.name, component);
      const before = previous.get(component);
      drift[id] = new ServiceDrift(
        `${name}-${id}`,
        {
          host: host.name,
          component,
          connection: hostConnection(host),
          probe: probeScript(cp, settings, host, component),
          repair: repairScript(cp, settings, host, component),
          // stop grace, start, health wait, and room for a slow SSH login
          repairTimeoutSeconds:
            componentStopGraceSeconds(settings, component) + settings.healthTimeoutSeconds + 60,
          observed: describeService(plannedComponentService(cp, settings, host, component)),
        },
        {
          parent,
          provider,
          aliases: host.replaces ? [{ name: `${name}-${driftId(host.replaces, component)}` }] : [],
          dependsOn: [commands[commandIds.ready(host.name, component)], ...(before ? [before] : [])],
        },
      );
      previous.set(component, drift[id]);
    }
  }
  return drift;
}
