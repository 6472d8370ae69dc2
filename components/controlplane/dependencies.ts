import * as pulumi from "@pulumi/pulumi";

/**
 * A `dependsOn` list for resources of which some are registered only later (the CRDs once their bundle
 * has loaded, the objects that wait for them): a plain array holding the resources known now and one
 * entry for the promised rest.
 *
 * Why not pass the promise of the whole list as `dependsOn`: the typed SDK classes merge such a promise
 * into an Output whose value is the list of Resource objects, and the SDK walks that value
 * (`containsUnknowns`, through each resource's parent, provider and fields) for every Output derived
 * from it, several times per dependent resource. Inside a plain array the promise is left alone until
 * the SDK gathers the dependencies, where it flattens a promised list like any nested list: the
 * dependency edges are exactly those of the promise of the whole list.
 */
export function dependsOnLater(
  now: readonly pulumi.Resource[],
  later: PromiseLike<readonly pulumi.Resource[]>,
): pulumi.Input<pulumi.Resource>[] {
  // typed as one promised resource: the SDK's dependsOn type names no nested lists, its gathering
  // flattens them (runtime/dependsOn.ts gatherExplicitDependencies)
  return [...now, Promise.resolve(later) as unknown as Promise<pulumi.Resource>];
}
