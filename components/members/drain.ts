/**
 * A pull member's execution-space drain (`<registration>-karmada-drain`): a resource that does nothing
 * on `up` and, when the member is removed, deletes its Works and waits for karmada-agent to finalize them
 * (lib/members/drain.ts) — before the Cluster, because it depends on the Cluster, which depends on the
 * agent, its RBAC and the execution namespace. It keeps the Karmada API access (a secret) in its state:
 * a delete only sees what the state holds.
 */
import * as pulumi from "@pulumi/pulumi";
import { ApiAccess, callApi } from "../../lib/kube/rest";
import { drainExecutionSpace } from "../../lib/members/drain";
import { LibraryDynamicResource } from "../dynamicResource";

/** Inputs of a drain. */
export interface ExecutionSpaceDrainArgs {
  readonly clusterName: pulumi.Input<string>;
  /** `karmada-es-<cluster>`. */
  readonly namespace: pulumi.Input<string>;
  /** karmada-apiserver and the credentials to delete and finalize Works (a secret). */
  readonly api: pulumi.Input<ApiAccess>;
  /** Remove the Works' finalizers without waiting for the agent (the registration's `forceRemove`). */
  readonly releaseAtOnce: pulumi.Input<boolean>;
}

/** A drain's state: its inputs, resolved. */
type DrainState = pulumi.Unwrap<ExecutionSpaceDrainArgs>;

/** Seconds karmada-agent gets to finalize the Works (`karmadactl unregister --wait` defaults to 60). */
const DRAIN_TIMEOUT_SECONDS = 300;
/** Seconds between checks. */
const DRAIN_POLL_SECONDS = 1;
/**
 * Seconds a Cluster whose agent reports its member unhealthy (Ready `False`), or a new one without a
 * Ready condition, is waited for before the drain releases its Works; an `Unknown` Ready (the agent's
 * lease lapsed for Karmada's grace period) is released at once, as Karmada's cluster controller does.
 */
const UNREADY_GRACE_SECONDS = 60;
/** Seconds karmada-apiserver may refuse connections before the drain takes the control plane as gone. */
const UNREACHABLE_SECONDS = 30;
/** Seconds one API request may take. */
const REQUEST_TIMEOUT_SECONDS = 15;

const STATE_KEYS: readonly (keyof DrainState)[] = ["clusterName", "namespace", "api", "releaseAtOnce"];
/** The inputs naming the drained cluster: a change of them is another cluster's drain. */
const IDENTITY_KEYS: readonly (keyof DrainState)[] = ["clusterName", "namespace"];

/**
 * The library functions the provider calls, bound here: the engine serializes the provider by value, and
 * a function read off its module at run time would capture the module — which, in an installed package,
 * becomes a `require` of a path the package's exports map does not list.
 */
const calls = { callApi, drainExecutionSpace };

/**
 * The drains' provider.
 * @public the packaging test serializes it by name from the installed package (and knip keeps it exported)
 */
export const drainProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: DrainState) {
    return { id: `${inputs.namespace}`, outs: inputs };
  },
  async diff(_id: string, olds: DrainState, news: DrainState) {
    const differs = (key: keyof DrainState) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]);
    // another cluster name: the old Cluster's Works are drained (this delete) before the old Cluster is
    // deleted at the end of the update; new credentials (a rotation) are an update, so that a later
    // delete uses valid ones
    const replaces = IDENTITY_KEYS.filter(differs);
    return { changes: STATE_KEYS.some(differs), replaces, deleteBeforeReplace: replaces.length > 0 };
  },
  async update(_id: string, _olds: DrainState, news: DrainState) {
    return { outs: news };
  },
  async delete(_id: string, state: DrainState) {
    await calls.drainExecutionSpace(
      (method, apiPath, body) =>
        calls.callApi(state.api, method, apiPath, body, REQUEST_TIMEOUT_SECONDS * 1000),
      {
        clusterName: state.clusterName,
        namespace: state.namespace,
        releaseAtOnce: state.releaseAtOnce,
        timeoutMs: DRAIN_TIMEOUT_SECONDS * 1000,
        pollMs: DRAIN_POLL_SECONDS * 1000,
        unreachableMs: UNREACHABLE_SECONDS * 1000,
        unreadyGraceMs: UNREADY_GRACE_SECONDS * 1000,
      },
    );
  },
};

/**
 * Deletes a pull member's Works, and waits for their finalization, when it is deleted itself (a dynamic
 * resource whose provider's text is cached, components/dynamicResource.ts).
 */
export class ExecutionSpaceDrain extends LibraryDynamicResource {
  constructor(name: string, args: ExecutionSpaceDrainArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      { name: "drain", provider: drainProvider },
      name,
      { ...args },
      { ...opts, additionalSecretOutputs: ["api"] },
    );
  }
}
