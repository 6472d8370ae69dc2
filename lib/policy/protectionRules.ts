/**
 * Stateful parts are protected: a mistaken `destroy` or a replace in a refactor must stop at the engine,
 * not lose the CAs every certificate chains to, etcd's members and data, or the registrations. What counts
 * as stateful is the same list the upgrade gate uses (lib/preview/stateful.ts).
 */
import { statefulKind } from "../preview/stateful";
import { PolicySubject, PolicyViolation } from "./subject";

/** Stateful resources without `protect`. */
export function statefulProtected(resources: readonly PolicySubject[]): PolicyViolation[] {
  return resources.flatMap((r) => {
    const kind = statefulKind(r.urn);
    if (kind === undefined || r.protect) return [];
    return [
      {
        urn: r.urn,
        message:
          `${r.name} holds state (${kind}) and is not protected. Fix: protect: true on the component ` +
          `(controlPlane.protect / etcd.protect in stack config, or the resource option in a program).`,
      },
    ];
  });
}
