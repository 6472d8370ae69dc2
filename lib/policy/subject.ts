/**
 * What a policy rule sees of a resource: the engine's view (type, URN, properties, `protect`), reduced to
 * plain data so the rules are pure functions with their own tests. `policy/index.ts` builds these from
 * @pulumi/policy's `PolicyResource`; nothing here imports Pulumi.
 */
import { parseUrn } from "../preview/urn";

/** One resource of the stack as a rule sees it. */
export interface PolicySubject {
  /** Type token, e.g. `kubernetes:apps/v1:StatefulSet`. */
  readonly type: string;
  /** Logical name (the last URN segment). */
  readonly name: string;
  readonly urn: string;
  /** Properties: the resource's outputs when known, its inputs while it is only planned. */
  readonly props: Readonly<Record<string, unknown>>;
  /** Whether `protect` is set (inherited from a protected parent). */
  readonly protect: boolean;
  /** URN of the parent resource (a component, for the library's children). */
  readonly parent?: string;
}

/** One finding: the resource it is about and what to do. */
export interface PolicyViolation {
  /** URN of the resource at fault; the engine prints it beside the message. */
  readonly urn?: string;
  /** Names the resource, says what is wrong and how to fix it. */
  readonly message: string;
}

/** Whether `subject` is a child (at any depth) of a component of the given short type, e.g. `EtcdCluster`. */
export function under(subject: Pick<PolicySubject, "urn">, component: string): boolean {
  return parseUrn(subject.urn).typeChain.slice(0, -1).includes(`karmada:index:${component}`);
}

/** `props[path…]`, or undefined when any step is missing or not an object. */
export function prop(props: unknown, ...path: string[]): unknown {
  let value = props;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
