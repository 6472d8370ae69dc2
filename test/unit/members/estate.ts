/** A control plane plus member registrations under recording mocks, as a stack program builds them. */
import * as k8s from "@pulumi/kubernetes";
import { MemberRegistration, MemberRegistrationArgs } from "../../../components/memberRegistration";
import { buildEstate, Estate } from "../../support/estate";
import { Registration, settle } from "../../support/mocks";
import { simulateControllers } from "./simulate";

export type MemberSpec = Omit<MemberRegistrationArgs, "controlPlane">;

export interface MemberEstate extends Estate {
  readonly members: MemberRegistration[];
  readonly providers: k8s.Provider[];
}

/** The member's provider, one per cluster (the cluster identifier is the cluster name). */
export function memberProvider(clusterName: string): k8s.Provider {
  return new k8s.Provider(`member-${clusterName}`, {
    kubeconfig: `/etc/kubeconfigs/${clusterName}`,
    clusterIdentifier: clusterName,
  });
}

/** Builds the estate, then registers every member and waits until all registrations settled. */
export async function buildMemberEstate(members: MemberSpec[], controlPlane = {}): Promise<MemberEstate> {
  const estate = await buildEstate(controlPlane);
  simulateControllers();
  const providers = members.map((m) => memberProvider(m.clusterName));
  const registrations = members.map(
    (m, i) =>
      new MemberRegistration(
        m.clusterName,
        { ...m, controlPlane: estate.controlPlane },
        { provider: providers[i] },
      ),
  );
  await settle(...providers, ...registrations, ...registrations.map((r) => r.cluster));
  await settle(...registrations.map((r) => r.cluster));
  return { ...estate, members: registrations, providers };
}

/** Registrations that belong to the component `name` (its children and theirs). */
export function childrenOf(records: Registration[], component: Registration): Registration[] {
  const out: Registration[] = [];
  const walk = (urn: string) => {
    for (const r of records.filter((x) => x.parentUrn === urn)) {
      out.push(r);
      walk(r.urn);
    }
  };
  walk(component.urn);
  return out;
}

/** The MemberRegistration component record of `clusterName`. */
export function componentOf(records: Registration[], clusterName: string): Registration {
  const hit = records.find((r) => r.type === "karmada:index:MemberRegistration" && r.name === clusterName);
  if (!hit) throw new Error(`no MemberRegistration ${clusterName}`);
  return hit;
}

/** Kubernetes objects among `records`, keyed `Kind/namespace/name`, each with the provider it went through. */
export function objectsOf(records: Registration[]): Map<string, Registration> {
  const out = new Map<string, Registration>();
  for (const r of records.filter((x) => x.type.startsWith("kubernetes:") && x.custom)) {
    const md = r.inputs.metadata ?? {};
    out.set(`${r.inputs.kind ?? r.type.split(":").pop()}/${md.namespace ?? ""}/${md.name}`, r);
  }
  return out;
}

/** Whether a resource went through `provider` (a provider reference is `<urn>::<id>`). */
export const through = (r: Registration, provider: Registration): boolean =>
  r.provider.startsWith(`${provider.urn}::`);

/** Every dependency of `r`, followed transitively through the recorded graph. */
export function transitiveDependencies(records: Registration[], r: Registration): Set<string> {
  const byUrn = new Map(records.map((x) => [x.urn, x]));
  const seen = new Set<string>();
  const stack = [...r.dependencies];
  while (stack.length) {
    const urn = stack.pop()!;
    if (seen.has(urn)) continue;
    seen.add(urn);
    stack.push(...(byUrn.get(urn)?.dependencies ?? []));
  }
  return seen;
}
