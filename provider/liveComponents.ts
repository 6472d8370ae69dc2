/**
 * Components built by this provider process, by URN. A program in another language passes a component
 * to another (`MemberRegistration(controlPlane=cp)`) as a resource reference; the engine sends every
 * construct of one deployment to the same provider process, so the reference resolves to the very
 * object built earlier — the same instance the TypeScript API would receive, with its providers,
 * certificates and registries — rather than a rehydrated shell that knows only its URN.
 */
import * as pulumi from "@pulumi/pulumi";
import { MODULE, PACKAGE } from "./components";

const byUrn = new Map<string, pulumi.ComponentResource>();

/** Records a component built by `construct` under its URN. */
export async function remember(component: pulumi.ComponentResource): Promise<string> {
  const urn = await new Promise<string>((resolve) => component.urn.apply(resolve));
  byUrn.set(urn, component);
  return urn;
}

/** The component with `urn`, or an error saying why a reference cannot be followed. */
export function componentAt(urn: string): pulumi.ComponentResource {
  const found = byUrn.get(urn);
  if (found) return found;
  throw new Error(
    `${urn} is not a component built in this deployment: pass a component created in the same program ` +
      `(references across stacks are not supported; use its outputs instead)`,
  );
}

/**
 * Makes the SDK's deserializer resolve `karmada:index:*` references to the live components. Resource
 * modules live in the SDK's global store, so one registration at start-up serves every construct call.
 */
export function registerComponentModule(version: string): void {
  pulumi.runtime.registerResourceModule(PACKAGE, MODULE, {
    version,
    construct: (_name: string, _type: string, urn: string) => componentAt(urn),
  });
}
