/**
 * Host drift checks of a control plane on hosts: one resource per component per host
 * (`<name>-<host>-drift-<component>`) whose state is what a probe over SSH finds — the service running
 * or stopped, the command line of the running process, its systemd unit. The remote commands that
 * install the services have no read, so a service stopped or a flag edited by hand would stay
 * invisible to Pulumi; with these, `pulumi refresh` records what it finds (the diff names the
 * component and host) and the next `pulumi up` restarts it as planned and waits until it is healthy.
 * Repairs of one component roll host by host, like its service commands.
 */
import * as pulumi from "@pulumi/pulumi";
import { describeService, parseProbeOutput } from "../../lib/hosts/drift";
import { SshTarget, runScriptOverSsh } from "../../lib/hosts/sshRun";
import { LibraryDynamicResource } from "../dynamicResource";

/** Inputs of a drift check; `observed` is the planned state, in the words the probe's findings use. */
export interface ServiceDriftArgs {
  readonly host: pulumi.Input<string>;
  readonly component: pulumi.Input<string>;
  /** The SSH connection of the host's commands (its keys are secrets). */
  readonly connection: pulumi.Input<unknown>;
  /** Script printing the probe line (read-only on the host). */
  readonly probe: pulumi.Input<string>;
  /** Script putting the service back as planned. */
  readonly repair: pulumi.Input<string>;
  /** Seconds the repair may take (stop, start, health wait). */
  readonly repairTimeoutSeconds: pulumi.Input<number>;
  /** The planned state, e.g. `running, command line sha256:1a2b3c4d5e6f`. */
  readonly observed: pulumi.Input<string>;
}

/** The state of a drift check: its inputs, with `observed` what the probe last found. */
interface DriftState {
  readonly host: string;
  readonly component: string;
  readonly connection: SshTarget;
  readonly probe: string;
  readonly repair: string;
  readonly repairTimeoutSeconds: number;
  readonly observed: string;
}

/**
 * The library functions the provider calls, bound here: the engine serializes the provider by value, and
 * a function read off its module at run time would capture the module — which, in an installed package,
 * becomes a `require` of a path the package's exports map does not list.
 */
const calls = { describeService, parseProbeOutput, runScriptOverSsh };

/** Seconds one probe may take (connect, read two files). */
const PROBE_TIMEOUT_MS = 60_000;

/** The inputs a change of which is an update of the check (everything it has). */
const INPUT_KEYS: readonly (keyof DriftState)[] = [
  "host",
  "component",
  "connection",
  "probe",
  "repair",
  "repairTimeoutSeconds",
  "observed",
];

async function observe(state: DriftState): Promise<string> {
  return calls.describeService(
    calls.parseProbeOutput(await calls.runScriptOverSsh(state.connection, state.probe, PROBE_TIMEOUT_MS)),
  );
}

/** Probes; repairs when the finding is not the plan; probes again and fails if it still is not. */
async function ensure(planned: DriftState): Promise<DriftState> {
  let found = await observe(planned);
  if (found !== planned.observed) {
    await calls.runScriptOverSsh(planned.connection, planned.repair, planned.repairTimeoutSeconds * 1000);
    found = await observe(planned);
    if (found !== planned.observed) {
      throw new Error(
        `${planned.component} on ${planned.host} is "${found}" after its repair, planned "${planned.observed}"`,
      );
    }
  }
  return { ...planned, observed: found };
}

/**
 * The drift checks' provider.
 * @public the packaging test serializes it by name from the installed package (and knip keeps it exported)
 */
export const driftProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: DriftState) {
    return { id: `${inputs.host}/${inputs.component}`, outs: await ensure(inputs) };
  },
  async read(id: string, props: DriftState) {
    // the finding also becomes the input, so that the next preview shows "found => planned"
    const found = { ...props, observed: await observe(props) };
    return { id, props: found, inputs: found };
  },
  async diff(_id: string, olds: DriftState, news: DriftState) {
    const changed = INPUT_KEYS.some((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]));
    return { changes: changed, replaces: [], deleteBeforeReplace: false };
  },
  async update(_id: string, _olds: DriftState, news: DriftState) {
    return { outs: await ensure(news) };
  },
  // nothing to undo on the host (and a host gone for good must not block the removal of its checks)
  async delete() {},
};

/**
 * One component's drift check on one host: a dynamic resource whose provider's text is cached
 * (components/dynamicResource.ts).
 */
export class ServiceDrift extends LibraryDynamicResource {
  /** What the probe found at the last create, update or refresh. */
  public readonly observed!: pulumi.Output<string>;

  constructor(name: string, args: ServiceDriftArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      { name: "drift", provider: driftProvider },
      name,
      { ...args },
      { ...opts, additionalSecretOutputs: ["connection"] },
    );
  }
}
