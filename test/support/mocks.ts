/**
 * The graph tests' side of the recording mocks (devkit/mocks.ts): install them, wait for a graph to
 * settle, read Outputs, look a registration up.
 */
import * as pulumi from "@pulumi/pulumi";
import { installRecordingMocks, Registration } from "../../devkit/mocks";

export type { Registration } from "../../devkit/mocks";

/** Installs recording mocks; returns the live list of registrations. */
export function recordResources(opts: { preview?: boolean; stack?: string } = {}): Registration[] {
  return installRecordingMocks(opts).registrations;
}

/** Resolves once every resource registered so far (and their outputs) has settled. */
export async function settle(...resources: pulumi.Resource[]): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await Promise.all(resources.map((r) => new Promise((resolve) => r.urn.apply(resolve))));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Reads an Output's value. */
export function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

/** True when the Output is marked secret. */
export function isSecret(output: pulumi.Output<unknown>): Promise<boolean> {
  return pulumi.isSecret(output);
}

/** Looks up one registration by type (suffix match allowed) and name; fails loudly when absent. */
export function find(records: Registration[], type: string, name: string): Registration {
  const hit = records.find((r) => (r.type === type || r.type.endsWith(type)) && r.name === name);
  if (!hit) {
    const names = records.filter((r) => r.type.endsWith(type)).map((r) => r.name);
    throw new Error(`no ${type} named ${name}; registered: ${names.join(", ")}`);
  }
  return hit;
}
