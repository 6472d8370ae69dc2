/**
 * `Construct` of the component provider: builds the real component (the TypeScript class, with its
 * validation before anything registers) and hands back the outputs the package schema declares.
 */
import * as pulumi from "@pulumi/pulumi";
import { ConstructResult } from "@pulumi/pulumi/provider";
import { SERVED_COMPONENTS } from "./components";
import { remember } from "./liveComponents";

/** The part of a package schema `construct` reads: each resource's output property names. */
export interface ServedSchema {
  readonly resources: Readonly<Record<string, { readonly properties?: Readonly<Record<string, unknown>> }>>;
}

/** The outputs of `component` that `schema` declares for `type`, skipping those the instance lacks. */
export function componentState(
  schema: ServedSchema,
  type: string,
  component: pulumi.ComponentResource,
): Record<string, unknown> {
  const declared = Object.keys(schema.resources[type]?.properties ?? {});
  const fields = component as unknown as Record<string, unknown>;
  return Object.fromEntries(
    declared.filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]]),
  );
}

/** Builds component `type` named `name` and returns its URN and declared outputs. */
export async function constructComponent(
  schema: ServedSchema,
  name: string,
  type: string,
  inputs: pulumi.Inputs,
  options: pulumi.ComponentResourceOptions,
): Promise<ConstructResult & { readonly urn: string; readonly state: Record<string, unknown> }> {
  const Component = SERVED_COMPONENTS[type];
  if (!Component || !schema.resources[type]) {
    const known = Object.keys(SERVED_COMPONENTS).join(", ");
    throw new Error(`unknown resource type ${type}: this package serves ${known}`);
  }
  const component = new Component(name, inputs as never, options);
  const urn = await remember(component);
  return { urn, state: componentState(schema, type, component) };
}
